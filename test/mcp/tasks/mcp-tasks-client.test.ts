/**
 * MCP tasks as a client (`connectMcp`, adapters/mcp-client/remote-task.ts): a call its server
 * answers with a task (MCP 2026-07-28's extension, agenttool's own server here) is the call's
 * Observable as any call is: the task's status message as progress, its questions through the
 * job's elicitor, its result as the final event, unsubscribing as `tasks/cancel`; the task id is
 * recorded through the job's recorder, and a batch resumed after its process was killed polls the
 * same task instead of calling again. The 2025-11-25 form runs server-everything's
 * `simulate-research-query`, which needs a task, as one.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp, httpTransport, type McpRemote } from '../../../adapters/mcp-client/index.js';
import { stdioTransport } from '../../../adapters/mcp-stdio/index.js';
import { argsHash } from '../../../lib/args-hash.js';
import {
  executeBatch,
  recordedCall,
  type EndedCall,
  type ExecutionEvent,
  type RecordedCall,
  type StartedCall,
  type Tool,
} from '../../../index.js';
import { slowCount } from '../../../cli/tools/slow-count.js';
import { root, startScript } from '../../support/cli.js';
import { servedWithTasks } from '../../support/task-server.js';
import { askingTools, failingTools, gateTool } from '../../support/task-tools.js';
import { until } from '../../support/until.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetTaskRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { scaled } from '../../support/time.js';

const gated = gateTool((label) => `${label}: at the gate`, 2);
const { signals, gates } = gated;
const askers = askingTools(false);

const tools: Tool[] = [slowCount, gated.tool, askers.ask, askers.confirm, ...failingTools()];

describe('MCP tasks as a client (connectMcp)', function () {
  this.timeout(scaled(30_000));
  const server = servedWithTasks('tasker', tools);
  const { store, find } = server;

  it('runs a call answered with a task to its result: its status as progress, its id recorded', async () => {
    expect(server.remote.protocolVersion).to.equal('2026-07-28');
    const recorded: RecordedCall[] = [];
    const events = await lastValueFrom(
      executeBatch(
        [{ tool: find('slow_count'), call: { id: 'c1', args: '{"to":3,"step_ms":40}' } }],
        {
          recorder: (record, call) => void recorded.push(recordedCall(record, call)),
        },
      ).pipe(toArray()),
    );
    const last = events.at(-1)!;
    expect(last.final && last.result?.output).to.equal('counted to 3');
    const progress = events.filter((e) => !e.final);
    expect(progress.length).to.be.greaterThan(0);
    for (const event of progress)
      expect(String(event.result!.output)).to.match(/^counted [123] of 3$/);
    const { taskId } = (progress[0]!.result!.details as { task: { taskId: string } }).task;
    expect(recorded).to.deep.equal([
      {
        callId: 'c1',
        record: {
          ns: 'mcp:task',
          data: JSON.stringify({ server: 'tasker', tool: 'slow_count', taskId, generation: 'v2' }),
        },
        argsHash: argsHash('{"step_ms":40,"to":3}'),
      },
    ]);
    expect((await store.get(taskId))?.task.status).to.equal('completed');
  });

  it('asks the task’s question through the job’s elicitor and answers it with tasks/update', async () => {
    const asked: string[] = [];
    const events = await lastValueFrom(
      executeBatch([{ tool: find('ask'), call: { id: 'c2', args: '{}' } }], {
        elicitor: (request) => {
          asked.push(request.message);
          return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
        },
      }).pipe(toArray()),
    );
    expect(asked).to.deep.equal(['Who are you?']);
    expect((events.at(-1) as ExecutionEvent & { final: true }).result?.output).to.equal(
      'Hello, Ada!',
    );
  });

  it('answers a tool’s opening question in the request, then follows the task it becomes', async () => {
    const recorded: RecordedCall[] = [];
    const events = await lastValueFrom(
      executeBatch([{ tool: find('confirm_then_work'), call: { id: 'c8', args: '{}' } }], {
        elicitor: () => Promise.resolve({ action: 'accept', content: { go: true } }),
        recorder: (record, call) => void recorded.push(recordedCall(record, call)),
      }).pipe(toArray()),
    );
    expect((events.at(-1) as ExecutionEvent & { final: true }).result?.output).to.equal('worked');
    expect(recorded.map((r) => r.record.ns)).to.deep.equal(['mcp:task']);
  });

  it('cancels the task when the call is unsubscribed: the call on the server is cancelled', async () => {
    const seen: ExecutionEvent[] = [];
    const subscription = executeBatch([
      { tool: find('gate'), call: { id: 'c3', args: '{"label":"unsubscribed"}' } },
    ]).subscribe((event) => seen.push(event));
    await until(() => seen.some((e) => !e.final), 'the first progress');
    subscription.unsubscribe();
    await until(() => signals.get('unsubscribed')?.aborted === true, 'the cancellation');
    const { taskId } = (seen[0]!.result!.details as { task: { taskId: string } }).task;
    for (let i = 0; i < 100 && (await store.get(taskId))?.task.status !== 'cancelled'; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.get(taskId))?.task).to.include({
      status: 'cancelled',
      statusMessage: 'cancelled by the client',
    });
  });

  it('fails a call following a task at once when its connection is closed', async () => {
    const own = await connectMcp(httpTransport(server.http.url));
    const done = lastValueFrom(
      executeBatch([
        {
          tool: own.tools.find((t) => t.name === 'gate')!,
          call: { id: 'c7', args: '{"label":"closed"}' },
        },
      ]).pipe(toArray()),
    );
    await until(() => signals.has('closed'), 'the task’s start');
    await own.close();
    const events = await done;
    expect(events.at(-1)!.error?.message).to.equal('mcp: connection closed');
    // The task itself runs on, for a client that resumes it.
    expect(signals.get('closed')!.aborted).to.equal(false);
    gates.get('closed')!();
  });

  it('fails the call of a failed task with the JSON-RPC error, and of an isError result as any remote failure', async () => {
    const events = await lastValueFrom(
      executeBatch([
        { tool: find('broken'), call: { id: 'c4', args: '{}' } },
        { tool: find('fails'), call: { id: 'c5', args: '{}' } },
      ]).pipe(toArray()),
    );
    const broken = events.find((e) => e.final && e.callId === 'c4')!;
    expect(broken.error).to.deep.include({ code: 'protocol', rpcCode: -32603 });
    expect(broken.error!.message).to.match(
      /^mcp: call "broken": task [0-9a-f-]+: MCP error -32603: the task failed: tool "broken" panicked: completed without a final event$/,
    );
    const fails = events.find((e) => e.final && e.callId === 'c5')!;
    // The server's isError result, as any remote tool's failure reads.
    expect(fails.error).to.deep.include({ message: 'no luck', code: 'remote_tool' });
  });

  it('resumes a batch whose process was killed mid-task by polling the same task, never calling again', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'agenttool-task-client-')), 'journal.jsonl');
    const before = gated.calls;
    const client = startScript('test/support/task-client.ts', [server.http.url, journal, 'killed']);
    await until(
      () => client.said().includes('progress killed: at the gate'),
      'the client’s progress',
      15_000,
    );
    client.child.kill('SIGKILL');
    await client.exited;
    expect(gated.calls).to.equal(before + 1);

    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = entries.flatMap((e) =>
      e.started === undefined ? [] : [e.started as StartedCall],
    );
    const recorded = entries.flatMap((e) =>
      e.recorded === undefined ? [] : [e.recorded as RecordedCall],
    );
    const ended = entries.flatMap((e) => (e.ended === undefined ? [] : [e.ended as EndedCall]));
    expect(started).to.have.length(1);
    expect(recorded).to.have.length(1);
    expect(ended).to.deep.equal([]);

    // A new process: the same job, resumed from the journal.
    const again = await connectMcp(httpTransport(server.http.url));
    try {
      const gate = again.tools.find((t) => t.name === 'gate')!;
      const done = lastValueFrom(
        executeBatch([{ tool: gate, call: { id: 'call_1', args: '{"label":"killed"}' } }], {
          resume: { started, recorded, ended },
        }).pipe(toArray()),
      );
      // Its progress is the same task's, and the task runs on: opened, it ends the resumed call.
      await new Promise((resolve) => setTimeout(resolve, 100));
      gates.get('killed')!();
      const events = await done;
      expect((events.at(-1) as ExecutionEvent & { final: true }).result?.output).to.equal(
        'through the gate: killed',
      );
      expect(gated.calls).to.equal(before + 1);
    } finally {
      await again.close();
    }
  });

  it('refuses to resume from a recorded task of another server, running the call by its replay', async () => {
    const gate = find('gate');
    const foreign = {
      callId: 'c6',
      record: {
        ns: 'mcp:task',
        data: JSON.stringify({ server: 'other', tool: 'gate', taskId: 'x', generation: 'v2' }),
      },
    };
    expect(gate.resumes?.([foreign.record])).to.equal(false);
    const events = await lastValueFrom(
      executeBatch([{ tool: gate, call: { id: 'c6', args: '{"label":"foreign"}' } }], {
        resume: { started: [{ callId: 'c6' }], recorded: [foreign] },
      }).pipe(toArray()),
    );
    expect(events.at(-1)!.error?.message).to.equal(
      'call "c6" was interrupted and not replayed: tool "gate" is not safe to run twice',
    );
  });
});

/**
 * A hand-written server of MCP 2025-11-25 (the v1 SDK, in memory) listing one tool that runs only
 * as a task, whose tools/call and tasks/get answer as `script` says: a hostile or broken peer.
 */
async function taskServer(
  serves: boolean,
  script: { create: () => unknown; get?: () => unknown },
): Promise<{ remote: McpRemote; reported: string[] }> {
  const server = new SdkServer(
    { name: 'scripted', version: '1' },
    {
      capabilities: serves
        ? { tools: {}, tasks: { requests: { tools: { call: {} } } } }
        : { tools: {} },
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'job', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
      { name: 'plain', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => script.create() as never);
  if (serves) server.setRequestHandler(GetTaskRequestSchema, () => (script.get?.() ?? {}) as never);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const reported: string[] = [];
  const remote = await connectMcp(clientSide, { onerror: (e) => reported.push(e.message) });
  return { remote, reported };
}

const TASK = {
  taskId: 't1',
  status: 'working',
  createdAt: '2026-12-04T00:00:00Z',
  lastUpdatedAt: '2026-12-04T00:00:00Z',
  ttl: 60_000,
  pollInterval: 10,
};

describe('MCP tasks as a client: a server that breaks the rules', function () {
  this.timeout(scaled(10_000));

  it('leaves out, saying why, a tool that runs only as a task on a server that serves no tasks', async () => {
    const { remote, reported } = await taskServer(false, { create: () => ({}) });
    try {
      expect(remote.tools.map((t) => t.name)).to.deep.equal(['plain']);
      expect(reported).to.deep.equal([
        'mcp: tools/list: left out tool "job": it runs only as a task (execution.taskSupport: "required"), and its server serves this client no tasks',
      ]);
    } finally {
      await remote.close();
    }
  });

  for (const [what, script, message] of [
    [
      'a task without an id',
      { create: () => ({ task: TASK }), get: () => ({ ...TASK, taskId: 5 }) },
      'mcp: call "job": task t1: tasks/get answered with a task that is not one: taskId is not a string',
    ],
    [
      'a status no task has',
      { create: () => ({ task: TASK }), get: () => ({ ...TASK, status: 'sleeping' }) },
      'mcp: call "job": task t1: tasks/get answered with a task that is not one: status "sleeping" is not a task status',
    ],
    [
      'a TTL that is not a number of ms',
      { create: () => ({ task: TASK }), get: () => ({ ...TASK, ttl: 'soon' }) },
      'mcp: call "job": task t1: tasks/get answered with a task that is not one: ttl is not whole ms or null',
    ],
  ] as const)
    it(`fails the call, and only it, on ${what}`, async () => {
      const { remote } = await taskServer(true, script as never);
      try {
        const job = remote.tools.find((t) => t.name === 'job')!;
        expect(job.task).to.equal('required');
        const events = await lastValueFrom(
          executeBatch([{ tool: job, call: { id: 'j1', args: '{}' } }]).pipe(toArray()),
        );
        expect(events.at(-1)!.error?.message).to.equal(message);
      } finally {
        await remote.close();
      }
    });
});

describe('MCP 2025-11-25 tasks as a client (server-everything)', function () {
  this.timeout(scaled(60_000));

  it('runs simulate-research-query, which needs a task, as one: its stages as progress, its report as the result', async () => {
    const remote = await connectMcp(
      stdioTransport({
        command: process.execPath,
        args: [
          join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
          'stdio',
        ],
      }),
    );
    try {
      expect(remote.protocolVersion).to.equal('2025-11-25');
      const research = remote.tools.find((t) => t.name === 'simulate-research-query')!;
      expect(research.task).to.equal('required');
      const events = await lastValueFrom(
        executeBatch([{ tool: research, call: { id: 'r1', args: '{"topic":"bees"}' } }]).pipe(
          toArray(),
        ),
      );
      const progress = events.filter((e) => !e.final).map((e) => e.result!.output);
      expect(progress).to.include.members(['Gathering sources...', 'Generating report...']);
      const last = events.at(-1)!;
      expect(String(last.final && last.result?.output)).to.match(/^# Research Report: bees\n/);
      // Its question (over tasks/result, naming the task) reaches the job's elicitor.
      const asked: string[] = [];
      const clarified = await lastValueFrom(
        executeBatch(
          [{ tool: research, call: { id: 'r2', args: '{"topic":"bees","ambiguous":true}' } }],
          {
            elicitor: (question) => {
              asked.push(question.message);
              return Promise.resolve({
                action: 'accept',
                content: { interpretation: 'technical' },
              });
            },
          },
        ).pipe(toArray()),
      );
      expect(asked).to.have.length(1);
      expect(asked[0]).to.match(/could have multiple interpretations/);
      expect(String(clarified.at(-1)!.result?.output)).to.match(/\*\*Clarification\*\*: technical/);
    } finally {
      await remote.close();
    }
  });
});
