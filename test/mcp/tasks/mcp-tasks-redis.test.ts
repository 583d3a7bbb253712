/**
 * MCP tasks shared by several instances through one Redis (`redisTaskStore`, docs/mcp.md): any
 * instance answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task another runs, an
 * answer or a cancellation received by one reaches the call running on the other, and a task
 * whose instance was killed is reported `failed`, saying so, within its lease. The killed
 * instance is `agenttool serve --http --tasks redis://...` in a process of its own. Needs
 * Debian's redis-server (started here; skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
  type TaskOptions,
  type TaskStore,
} from '../../../adapters/mcp-server/index.js';
import { redisTaskStore } from '../../../adapters/redis/index.js';
import { slowCount } from '../../../cli/tools/slow-count.js';
import type { Tool } from '../../../index.js';
import { serveCli } from '../../support/cli.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../../support/redis.js';
import { ended, pollUntil, request } from '../../support/tasks.js';
import { askingTools, gateTool } from '../../support/task-tools.js';
import { scaled } from '../../support/time.js';

/** The `gate` tool, whose calls no test lets through: each waits until cancelled. */
const gated = gateTool((label) => `${label}: waiting`);
const { signals } = gated;

const tools: Tool[] = [slowCount, gated.tool, askingTools(true).ask];

const ABANDONED =
  'the server instance running this task stopped before it finished (its lease lapsed): call the tool again';

describe('MCP tasks shared through Redis by several instances', function () {
  this.timeout(scaled(60_000));
  let redis: TestRedis;
  const stores: TaskStore[] = [];
  const servers: McpHttpServer[] = [];
  let a: string;
  let b: string;

  /** An instance of its own: its own store value (so its own owner id), the shared Redis. */
  async function instance(url: string): Promise<McpHttpServer> {
    const store = redisTaskStore(url, { onError: () => undefined });
    stores.push(store);
    const options: TaskOptions = { store, leaseMs: 600 };
    const http = await serveHttp({
      tasks: options,
      factory: () => createMcpServer({ name: 'shared', version: '1' }, tools, { tasks: options }),
    });
    servers.push(http);
    return http;
  }

  before(async function () {
    skipWithoutRedis(this, 'the tests of tasks shared through Redis');
    redis = await startRedis();
    a = (await instance(redis.url)).url;
    b = (await instance(redis.url)).url;
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });

  it('lets another instance poll a task and cancel it: the cancel reaches the running call', async () => {
    const { taskId } = await request(a, 'tools/call', {
      name: 'gate',
      arguments: { label: 'cancel-from-b' },
    });
    const seen = await pollUntil(b, taskId as string, (t) => t.statusMessage !== undefined);
    expect(seen).to.include({ status: 'working', statusMessage: 'cancel-from-b: waiting' });
    await request(b, 'tasks/cancel', { taskId });
    const done = await pollUntil(b, taskId as string, ended);
    expect(done).to.include({ status: 'cancelled', statusMessage: 'cancelled by the client' });
    expect(signals.get('cancel-from-b')!.aborted).to.equal(true);
    expect((await request(a, 'tasks/get', { taskId })).status).to.equal('cancelled');
  });

  it('takes an answer given to another instance to the call that asked', async () => {
    const { taskId } = await request(a, 'tools/call', { name: 'ask', arguments: {} });
    const asking = await pollUntil(b, taskId as string, (t) => t.status === 'input_required');
    expect(Object.keys(asking.inputRequests as object)).to.deep.equal(['who']);
    await request(b, 'tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Grace' } } },
    });
    const done = await pollUntil(b, taskId as string, ended);
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Grace!' }],
    });
  });

  it('reports failed, saying so, a task whose instance was killed, within its lease', async () => {
    const cli = serveCli(['--tasks', redis.url, '--task-lease', '600']);
    try {
      const url = await cli.url;
      expect(cli.stderr()).to.contain(`tasks in ${redis.url}`);
      const { taskId } = await request(url, 'tools/call', {
        name: 'slow_count',
        arguments: { to: 1000, step_ms: 50 },
      });
      // Another instance sees its progress, through Redis.
      const counting = await pollUntil(a, taskId as string, (t) => t.statusMessage !== undefined);
      expect(counting.statusMessage).to.match(/^counted \d+ of 1000$/);
      cli.child.kill('SIGKILL');
      await cli.done;
      const killedAt = Date.now();
      const failed = await pollUntil(a, taskId as string, ended, 5_000);
      expect(Date.now() - killedAt).to.be.below(3_000);
      expect(failed).to.deep.include({
        status: 'failed',
        statusMessage: ABANDONED,
        error: { code: -32603, message: ABANDONED },
      });
      // Once: every instance sees the same failure after.
      expect((await request(b, 'tasks/get', { taskId })).lastUpdatedAt).to.equal(
        failed.lastUpdatedAt,
      );
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('reads a task record another writer damaged as a failed task naming the bad field, and goes on serving', async () => {
    const writer = new Redis(redis.url);
    try {
      const sound = {
        tool: 'gate',
        status: 'working',
        createdAt: Date.now(),
        lastUpdatedAt: Date.now(),
        ttlMs: 60_000,
        owner: 'elsewhere',
      };
      const record = (taskId: string, fields: object): string =>
        JSON.stringify({ ...sound, taskId, ...fields });
      const cases: [string, string, string][] = [
        [
          'junk-created',
          record('junk-created', { createdAt: 'junk' }),
          'its createdAt is "junk", not a time in ms since the epoch',
        ],
        [
          'huge-created',
          record('huge-created', { createdAt: 1e300 }),
          'its createdAt is 1e+300, not a time in ms since the epoch',
        ],
        [
          'bad-status',
          record('bad-status', { status: 'evil' }),
          'its status is "evil", not one of working, input_required, completed, failed, cancelled',
        ],
        ['not-json', '{"taskId":', 'it is not JSON'],
        ['an-array', '[1,2]', 'it is [1,2], not a task object'],
      ];
      for (const [taskId, text, problem] of cases) {
        await writer.set(`agenttool:tasks:${taskId}`, text);
        await writer.set(`agenttool:tasks:${taskId}:lease`, 'elsewhere');
        const message = `the stored task is damaged (${problem}): call the tool again`;
        const task = await request(b, 'tasks/get', { taskId });
        expect(task, taskId).to.deep.include({
          taskId,
          status: 'failed',
          statusMessage: message,
          error: { code: -32603, message },
        });
        // An update or a cancel of it is acknowledged (the task is final), and nothing throws.
        await request(a, 'tasks/cancel', { taskId });
        await request(a, 'tasks/update', { taskId, inputResponses: {} });
      }
      // Every other task is served as before.
      const { taskId } = await request(a, 'tools/call', {
        name: 'slow_count',
        arguments: { to: 1, step_ms: 0 },
      });
      const done = await pollUntil(b, taskId as string, ended);
      expect(done.result).to.deep.equal({
        content: [{ type: 'text', text: 'counted to 1' }],
        resultType: 'complete',
      });
    } finally {
      writer.disconnect();
    }
  });

  it('answers with a clear error while Redis is away, and writes its tasks once it is back', async () => {
    const own = await startRedis();
    const store = redisTaskStore(own.url, {
      onError: () => undefined,
      redis: { commandTimeout: 400 },
    });
    stores.push(store);
    const options: TaskOptions = { store, leaseMs: 3_000 };
    const said: string[] = [];
    const http = await serveHttp({
      tasks: options,
      factory: () =>
        createMcpServer({ name: 'away', version: '1' }, tools, {
          tasks: options,
          onError: (e) => said.push(e.message),
        }),
    });
    servers.push(http);
    try {
      const { taskId } = await request(http.url, 'tools/call', {
        name: 'slow_count',
        arguments: { to: 3, step_ms: 300 },
      });
      // Redis stops answering (as when the network to it breaks), for a while.
      own.child.kill('SIGSTOP');
      const error = await request(http.url, 'tools/call', {
        name: 'slow_count',
        arguments: { to: 1, step_ms: 0 },
      }).then(
        () => undefined,
        (err: { error: { code: number; message: string } }) => err.error,
      );
      expect(error?.code).to.equal(-32603);
      expect(error?.message).to.match(
        new RegExp(
          `^task store: Redis at redis://127\\.0\\.0\\.1:${own.port}/?: creating task [0-9a-f-]+: Command timed out$`,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      own.child.kill('SIGCONT');
      // The task ran on meanwhile; what it ended with is written once Redis answers again.
      const done = await pollUntil(http.url, taskId as string, ended, 15_000);
      expect(done.result).to.deep.equal({
        resultType: 'complete',
        content: [{ type: 'text', text: 'counted to 3' }],
      });
      // Written to Redis too, once it answers (the writes it missed are tried again).
      for (let i = 0; i < 100; i++) {
        if ((await store.get(taskId as string))?.task.status === 'completed') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await store.get(taskId as string))?.task.status).to.equal('completed');
      // The outage was told, once per task and 10 s, not at every retry.
      expect(said.filter((line) => line.includes(taskId as string))).to.have.length.within(1, 2);
    } finally {
      own.child.kill('SIGCONT');
      await own.stop();
    }
  });
});
