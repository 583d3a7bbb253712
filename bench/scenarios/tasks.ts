/**
 * Scenario 9, MCP tasks: what a call costs when it runs as a task of MCP's tasks extension
 * (2026-07-28) over the same call answered in its request, on one `serveHttp` on loopback, by a
 * client that polls `tasks/get` at once until the task has ended; with tasks in memory
 * (`memoryTaskStore`) and in Redis (`redisTaskStore`, Debian's redis-server started for the run,
 * the row left out with a note where it is missing). Also what a task that ends in 5 ms costs
 * through `connectMcp`, which polls on its own schedule (at once, then backing off to the server's
 * `pollIntervalMs`, default 1 s: docs/mcp.md), over the same 5 ms call answered in its request,
 * and the heap a finished task holds in the memory store until its TTL.
 *
 * @module
 */
import { Agent, request } from 'node:http';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { CallContext } from '../../lib/context.js';
import type { Tool } from '../../lib/contract.js';
import { z } from 'zod';
import {
  createMcpServer,
  memoryTaskStore,
  serveHttp,
  type McpHttpServer,
  type TaskOptions,
  type TaskStore,
} from '../../adapters/mcp-server/index.js';
import { redisTaskStore } from '../../adapters/redis/index.js';
import { tool } from '../../lib/tool.js';
import { findRedis, startRedis } from '../../test/support/redis.js';
import { interleave, settledHeap, type Variant } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

const work = (name: string, task: boolean) =>
  tool({
    name,
    description: 'Upper-cases its text.',
    parameters: z.object({ text: z.string() }),
    task,
    execute: ({ text }) => text.toUpperCase(),
  });
/** A tool whose calls take `ms` ms. */
const slow = (name: string, task: boolean, ms: number) =>
  tool({
    name,
    description: `Upper-cases its text after ${ms} ms.`,
    parameters: z.object({ text: z.string() }),
    task,
    execute: async ({ text }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text.toUpperCase();
    },
  });
const TOOLS = [
  work('plain', false),
  work('tasked', true),
  slow('plain5', false, 5),
  slow('tasked5', true, 5),
];

/** One call of `remote` through its Observable, to its final event. */
function callOnce(remote: Tool, i: number): Promise<void> {
  const call = { id: `c${i}`, args: '{"text":"hello"}' };
  return new Promise((resolve, reject) => {
    remote.execute(call, new CallContext(call)).subscribe({
      next: (event) => {
        if (event.final) resolve();
      },
      error: reject,
    });
  });
}

/** A client of raw modern requests on one keep-alive connection. */
class Poster {
  private id = 0;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  constructor(private readonly url: string | URL) {}

  post(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: ++this.id,
      method,
      params: { ...params, _meta: META },
    });
    const name = typeof params.name === 'string' ? params.name : params.taskId;
    return new Promise((resolve, reject) => {
      const req = request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': method,
            ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => {
            const data = text.startsWith('{')
              ? text
              : text
                  .split('\n')
                  .filter((line) => line.startsWith('data: '))
                  .at(-1)!
                  .slice(6);
            const message = JSON.parse(data) as {
              result?: Record<string, unknown>;
              error?: unknown;
            };
            if (message.result === undefined) reject(new Error(JSON.stringify(message.error)));
            else resolve(message.result);
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** One call of the plain tool, answered in its request. */
async function plainCall(client: Poster): Promise<void> {
  await client.post('tools/call', { name: 'plain', arguments: { text: 'hello' } });
}

/** One call of the task tool: its task made, then polled at once until it has ended. */
async function taskCall(client: Poster): Promise<void> {
  const created = await client.post('tools/call', { name: 'tasked', arguments: { text: 'hello' } });
  const taskId = created.taskId as string;
  for (;;) {
    const task = await client.post('tasks/get', { taskId });
    if (task.status === 'completed') return;
    if (task.status !== 'working') throw new Error(`task ${taskId}: ${String(task.status)}`);
  }
}

async function serve(store: TaskStore): Promise<McpHttpServer> {
  const tasks: TaskOptions = { store };
  return serveHttp({
    tasks,
    factory: () => createMcpServer({ name: 'bench', version: '1' }, TOOLS, { tasks }),
  });
}

/** A task against a plain call on the same server, `calls` of each a round. */
async function overhead(store: TaskStore, calls: number, rounds: number) {
  const http = await serve(store);
  const client = new Poster(http.url);
  try {
    const sequence = (one: (c: Poster) => Promise<void>) => async () => {
      for (let i = 0; i < calls; i++) await one(client);
    };
    const variants: Variant[] = [
      { name: 'plain', calls, clock: 'wall', run: sequence(plainCall) },
      { name: 'task', calls, clock: 'wall', run: sequence(taskCall) },
    ];
    const [plain, task] = await interleave(variants, { rounds });
    return { plain: plain!.median, task: task!.median };
  } finally {
    client.close();
    await http.close();
  }
}

/**
 * Through `connectMcp`: a task that ends in 5 ms against the same 5 ms call answered in its
 * request, the server's `pollIntervalMs` its default.
 */
async function throughClient(store: TaskStore, calls: number, rounds: number) {
  const http = await serve(store);
  const remote = await connectMcp(httpTransport(http.url));
  try {
    const named = (name: string) => remote.tools.find((t) => t.name === name)!;
    const [plain5, tasked5] = [named('plain5'), named('tasked5')];
    const sequence = (one: Tool) => async () => {
      for (let i = 0; i < calls; i++) await callOnce(one, i);
    };
    const [plain, task] = await interleave(
      [
        { name: 'plain', calls, clock: 'wall', run: sequence(plain5) },
        { name: 'task', calls, clock: 'wall', run: sequence(tasked5) },
      ],
      { rounds, warmup: 1 },
    );
    return { plain: plain!.median, task: task!.median };
  } finally {
    await remote.close();
    await http.close();
  }
}

/** The task of 5 ms through `connectMcp` over the plain call, as a row. */
function clientRow(
  scenario: string,
  where: string,
  calls: number,
  measured: { plain: number; task: number },
): Row {
  return row({
    scenario,
    name: `connectMcp: a task that ends in 5 ms over the same call answered at once, tasks ${where}, ${calls} calls`,
    ours: { label: 'task', value: measured.task, unit: 'ns/call' },
    baseline: { label: 'plain call', value: measured.plain, unit: 'ns/call' },
    target: { on: 'ratio', max: 2.5, text: '<= 2.5x' },
    note: 'polled at once, then after 2, 4, 8… ms up to pollIntervalMs (default 1 s)',
  });
}

/** The heap `count` finished tasks hold in a memory store, per task. */
async function heldPerTask(count: number): Promise<number> {
  const store = memoryTaskStore();
  const http = await serve(store);
  const client = new Poster(http.url);
  try {
    for (let i = 0; i < 200; i++) await taskCall(client);
    const before = settledHeap();
    for (let i = 0; i < count; i++) await taskCall(client);
    return (settledHeap() - before) / count;
  } finally {
    client.close();
    await http.close();
  }
}

export async function tasksScenario(scale: Scale): Promise<Row[]> {
  const calls = Math.max(50, Math.round(500 * scale.size));
  const rounds = scale.rounds(5);
  const scenario = '9 MCP tasks';
  const rows: Row[] = [];
  const memory = await overhead(memoryTaskStore(), calls, rounds);
  rows.push(
    row({
      scenario,
      name: `a task (made, polled to its end) over a call answered at once, tasks in memory, ${calls} calls`,
      ours: { label: 'task', value: memory.task, unit: 'ns/call' },
      baseline: { label: 'plain call', value: memory.plain, unit: 'ns/call' },
      target: { on: 'ratio', max: 3, text: '<= 3x' },
      note: 'a task takes two requests at least (tools/call, tasks/get): 2x is the floor',
    }),
  );
  const clientCalls = Math.max(10, Math.round(50 * scale.size));
  const clientRounds = scale.rounds(5);
  rows.push(
    clientRow(
      scenario,
      'in memory',
      clientCalls,
      await throughClient(memoryTaskStore(), clientCalls, clientRounds),
    ),
  );
  const perTask = await heldPerTask(Math.max(500, Math.round(5_000 * scale.size)));
  rows.push(
    row({
      scenario,
      name: 'heap a finished task holds in the memory store until its TTL, per task',
      ours: { label: 'memoryTaskStore', value: perTask, unit: 'B/call' },
      target: { on: 'ours', max: 4096, text: '<= 4 KB' },
    }),
  );
  if (findRedis() === undefined) {
    rows.push(
      row({
        scenario,
        name: 'a task over a call answered at once, tasks in Redis',
        ours: { label: 'task', value: 0, unit: 'ns/call' },
        note: 'not measured: redis-server is not installed (apt-get install redis-server)',
      }),
    );
    return rows;
  }
  const redis = await startRedis();
  const store = redisTaskStore(redis.url);
  try {
    const shared = await overhead(store, calls, rounds);
    rows.push(
      row({
        scenario,
        name: `a task over a call answered at once, tasks in Redis on loopback, ${calls} calls`,
        ours: { label: 'task', value: shared.task, unit: 'ns/call' },
        baseline: { label: 'plain call', value: shared.plain, unit: 'ns/call' },
        target: { on: 'ratio', max: 4, text: '<= 4x' },
        note: 'every change of a task is a Redis write, every poll a read',
      }),
    );
    rows.push(
      clientRow(
        scenario,
        'in Redis on loopback',
        clientCalls,
        await throughClient(store, clientCalls, clientRounds),
      ),
    );
  } finally {
    await store.close();
    await redis.stop();
  }
  return rows;
}
