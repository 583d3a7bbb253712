/**
 * MCP's tasks extension served (`createMcpServer(..., { tasks })`, docs/mcp.md): a tool marked
 * `task` runs as a task for a 2026-07-28 client that declares the extension, and as any call for
 * one that does not; its status follows its progress and questions; `tasks/update` answers and
 * `tasks/cancel` cancels it; what it ends with is kept for its TTL; every message is checked
 * against the extension's official schemas (`@modelcontextprotocol/ext-tasks`).
 */
import { expect } from 'chai';
import {
  CallToolResultV2Schema,
  CreateTaskResultV2Schema,
  DetailedTaskV2Schema,
  GetTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { z } from 'zod';
import {
  createMcpServer,
  memoryTaskStore,
  serveHttp,
  type McpHttpServer,
  type StoredTask,
  type TaskOptions,
  type TaskStore,
} from '../../../adapters/mcp-server/index.js';
import { tool, wrap, type Tool } from '../../../index.js';
import { slowCount } from '../../../cli/tools/slow-count.js';
import { ASKABLE, ENVELOPE, postModern } from '../../support/modern.js';
import { callRequest, openSession, post } from '../../support/raw-http.js';
import { ended, pollUntil, refusal, request, TASKING, TASKS } from '../../support/tasks.js';
import { askingTools, failingTools, gateTool } from '../../support/task-tools.js';
import { scaled } from '../../support/time.js';

/** The `gate` tool: each call's signal and what lets it through, by label. */
const gated = gateTool(() => 'waiting at the gate', 2);
const { signals, gates } = gated;
const askers = askingTools(true);

const tools: Tool[] = [
  slowCount,
  gated.tool,
  askers.ask,
  askers.confirm,
  tool({
    name: 'only_task',
    description: 'Runs only as a task.',
    parameters: z.object({}),
    task: 'required',
    execute: () => 'ran',
  }),
  ...failingTools(),
  tool({
    name: 'plain',
    description: 'Not a task tool.',
    parameters: z.object({}),
    execute: () => 'plain answer',
  }),
];

function serve(options: TaskOptions): Promise<McpHttpServer> {
  return serveHttp({
    tasks: options,
    factory: () => createMcpServer({ name: 'tasks', version: '1' }, tools, { tasks: options }),
  });
}

const NOT_TASKING = ASKABLE;

describe('MCP tasks served (2026-07-28, the tasks extension)', function () {
  this.timeout(scaled(40_000));
  let http: McpHttpServer;
  let url: string;
  before(async () => {
    http = await serve({ store: memoryTaskStore(), pollIntervalMs: 250 });
    url = http.url;
  });
  after(() => http.close());

  it('advertises the extension on server/discover', async () => {
    const discovered = await request(url, 'server/discover', {});
    expect(discovered.capabilities).to.deep.include({ extensions: { [TASKS]: {} } });
  });

  it('answers a task tool’s call with its task, whose status follows its progress, then its result', async () => {
    const created = await request(url, 'tools/call', {
      name: 'gate',
      arguments: { label: 'progress' },
    });
    expect(CreateTaskResultV2Schema.safeParse(created).success, JSON.stringify(created)).to.equal(
      true,
    );
    expect(created).to.include({ resultType: 'task', status: 'working', ttlMs: 3_600_000 });
    expect(created.pollIntervalMs).to.equal(250);
    expect(created).to.not.have.any.keys('result', 'content', 'requestState');
    const taskId = created.taskId as string;
    const working = await pollUntil(url, taskId, (t) => t.statusMessage !== undefined);
    expect(GetTaskResultV2Schema.safeParse(working).success).to.equal(true);
    expect(working).to.include({
      resultType: 'complete',
      status: 'working',
      statusMessage: 'waiting at the gate',
    });
    gates.get('progress')!();
    const done = await pollUntil(url, taskId, ended);
    expect(GetTaskResultV2Schema.safeParse(done).success).to.equal(true);
    expect(done.status).to.equal('completed');
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'through the gate: progress' }],
    });
    // Kept: asked again, the same result.
    expect((await request(url, 'tasks/get', { taskId })).result).to.deep.equal(done.result);
  });

  it('reports numeric progress as “n of total”', async () => {
    const { taskId } = await request(url, 'tools/call', {
      name: 'slow_count',
      arguments: { to: 3, step_ms: 30 },
    });
    const seen = new Set<unknown>();
    const done = await pollUntil(url, taskId as string, (t) => {
      seen.add(t.statusMessage);
      return ended(t);
    });
    expect(done.statusMessage).to.equal('counted 3 of 3');
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'counted to 3' }],
    });
  });

  it('gives a client that did not declare the extension a plain result, and refuses it tasks/*', async () => {
    const plain = await request(
      url,
      'tools/call',
      { name: 'slow_count', arguments: { to: 2, step_ms: 0 } },
      NOT_TASKING,
    );
    expect(plain).to.include({ resultType: 'complete' });
    expect(plain).to.not.have.property('taskId');
    expect(plain.content).to.deep.equal([{ type: 'text', text: 'counted to 2' }]);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params =
        method === 'tasks/update' ? { taskId: 'x', inputResponses: {} } : { taskId: 'x' };
      const error = await refusal(url, method, params, NOT_TASKING);
      expect(error.code, method).to.equal(-32021);
      expect(error.data).to.deep.equal({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
  });

  it('refuses a task-only tool to a client without the extension (-32021), and runs it as a task for one with it', async () => {
    const error = await refusal(url, 'tools/call', { name: 'only_task', arguments: {} }, ENVELOPE);
    expect(error.code).to.equal(-32021);
    expect(error.message).to.equal(
      `tool "only_task" runs only as a task: declare the extension "${TASKS}" in the request's client capabilities`,
    );
    const created = await request(url, 'tools/call', { name: 'only_task', arguments: {} });
    const done = await pollUntil(url, created.taskId as string, ended);
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'ran' }],
    });
  });

  it('answers a tool that is not a task tool, and arguments that fail their schema, at once', async () => {
    const plain = await request(url, 'tools/call', { name: 'plain', arguments: {} });
    expect(plain).to.include({ resultType: 'complete' });
    const invalid = await request(url, 'tools/call', {
      name: 'slow_count',
      arguments: { to: 'many' },
    });
    expect(invalid).to.include({ resultType: 'complete', isError: true });
    expect(invalid).to.not.have.property('taskId');
    expect((invalid.content as { text: string }[])[0]!.text).to.match(
      /^Error: invalid arguments: /,
    );
  });

  it('asks a question through the task (input_required) and takes the answer from tasks/update', async () => {
    const { taskId } = await request(url, 'tools/call', { name: 'ask', arguments: {} });
    const asking = await pollUntil(url, taskId as string, (t) => t.status === 'input_required');
    expect(GetTaskResultV2Schema.safeParse(asking).success).to.equal(true);
    expect(asking.inputRequests).to.deep.equal({
      who: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Who are you?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        },
      },
    });
    // An answer to a key not open is ignored; the answer to the open one is the tool's.
    const ack = await request(url, 'tasks/update', {
      taskId,
      inputResponses: {
        nobody: { action: 'accept', content: { name: 'Mallory' } },
        who: { action: 'accept', content: { name: 'Ada' } },
      },
    });
    expect(ack).to.deep.equal({ resultType: 'complete', _meta: ack._meta });
    const done = await pollUntil(url, taskId as string, ended);
    expect(done).to.not.have.property('inputRequests');
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  });

  it('asks through the task a question the tool asks while its task is being made (a slow store)', async () => {
    // The task is made once the call's first turn ends with no question open; a store that
    // takes 200 ms to make it (a busy Redis) leaves the tool, which asks 10 ms in, asking then.
    const base = memoryTaskStore();
    const store: TaskStore = {
      ...base,
      create: async (task, leaseMs) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return base.create(task, leaseMs);
      },
    };
    const slow = await serve({ store, pollIntervalMs: 250 });
    try {
      const { taskId } = await request(slow.url, 'tools/call', { name: 'ask', arguments: {} });
      const asking = await pollUntil(
        slow.url,
        taskId as string,
        (t) => t.status === 'input_required',
      );
      expect(Object.keys(asking.inputRequests as object)).to.deep.equal(['who']);
      await request(slow.url, 'tasks/update', {
        taskId,
        inputResponses: { who: { action: 'accept', content: { name: 'Lin' } } },
      });
      const done = await pollUntil(slow.url, taskId as string, ended);
      expect(done.result).to.deep.equal({
        resultType: 'complete',
        content: [{ type: 'text', text: 'Hello, Lin!' }],
      });
    } finally {
      await slow.close();
    }
  });

  it('asks a tool’s opening question in the request, then makes the task on the retry', async () => {
    const first = await request(url, 'tools/call', { name: 'confirm_then_work', arguments: {} });
    expect(first).to.include({ resultType: 'input_required' });
    expect(first).to.not.have.property('taskId');
    expect(Object.keys(first.inputRequests as object)).to.deep.equal(['go']);
    const second = await request(url, 'tools/call', {
      name: 'confirm_then_work',
      arguments: {},
      inputResponses: { go: { action: 'accept', content: { go: true } } },
      requestState: first.requestState,
    });
    expect(CreateTaskResultV2Schema.safeParse(second).success).to.equal(true);
    expect(second).to.not.have.any.keys('requestState', 'inputRequests');
    const done = await pollUntil(url, second.taskId as string, ended);
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'worked' }],
    });
  });

  it('runs a tool’s opening question through the task for a client that answers no questions', async () => {
    const meta = {
      ...TASKING,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
    };
    const created = await request(
      url,
      'tools/call',
      { name: 'confirm_then_work', arguments: {} },
      meta,
    );
    expect(created.resultType).to.equal('task');
    const done = await request(url, 'tasks/get', { taskId: created.taskId }, meta).then(
      async (t) => (ended(t) ? t : pollUntil(url, created.taskId as string, ended)),
    );
    // Asked of a client that cannot answer, the question is declined at once.
    expect(done.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'stopped' }],
    });
  });

  it('refuses tasks/update without inputResponses, and an unknown task, with -32602', async () => {
    const { taskId } = await request(url, 'tools/call', { name: 'ask', arguments: {} });
    const error = await refusal(url, 'tasks/update', { taskId });
    expect(error).to.deep.equal({
      code: -32602,
      message: 'tasks/update: inputResponses must be an object of answers by question key',
    });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const unknown = await refusal(url, method, { taskId: 'no-such-task' });
      expect(unknown.code, method).to.equal(-32602);
      expect(unknown.message).to.equal(
        'unknown task "no-such-task": never created here, or past its ttlMs',
      );
    }
    await request(url, 'tasks/cancel', { taskId });
  });

  it('refuses tasks/update whose inputResponses is no object (an array, a string, null) with -32602 naming the field', async () => {
    const { taskId } = await request(url, 'tools/call', { name: 'ask', arguments: {} });
    // The question open first: an answer to a key not open yet is ignored (docs/mcp.md), so one
    // sent before the tool asks would be lost by the client's own doing.
    const asking = await pollUntil(url, taskId as string, (t) => t.status === 'input_required');
    const cases: [unknown, string][] = [
      [[{ action: 'accept', content: { name: 'Lin' } }], 'an array'],
      ['who', 'a string'],
      [7, 'a number'],
      [null, 'null'],
    ];
    for (const [inputResponses, kind] of cases) {
      const error = await refusal(url, 'tasks/update', { taskId, inputResponses });
      expect(error, kind).to.deep.equal({
        code: -32602,
        message: `tasks/update: inputResponses must be an object of answers by question key, got ${kind}`,
      });
    }
    // The task still waits for its answer, the same question open, which an object of answers
    // gives.
    const still = await request(url, 'tasks/get', { taskId });
    expect(still).to.include({ status: 'input_required' });
    expect(still.inputRequests).to.deep.equal(asking.inputRequests);
    await request(url, 'tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Lin' } } },
    });
    const done = await pollUntil(url, taskId as string, ended);
    expect(done.result).to.deep.equal({
      content: [{ type: 'text', text: 'Hello, Lin!' }],
      resultType: 'complete',
    });
  });

  it('reads a stored task with a hostile field (createdAt not a time) as a failed task naming the field', async () => {
    const store = memoryTaskStore();
    const own = await serve({ store });
    try {
      const now = Date.now();
      const hostile = {
        taskId: 'hostile-created',
        tool: 'gate',
        status: 'working',
        createdAt: 'yesterday',
        lastUpdatedAt: now,
        ttlMs: null,
        owner: 'elsewhere',
      } as unknown as StoredTask;
      await store.create(hostile, 60_000);
      const message =
        'the stored task is damaged (its createdAt is "yesterday", not a time in ms since the epoch): call the tool again';
      const task = await request(own.url, 'tasks/get', { taskId: 'hostile-created' });
      expect(task).to.deep.include({
        taskId: 'hostile-created',
        status: 'failed',
        statusMessage: message,
        error: { code: -32603, message },
      });
      const { taskId } = await request(own.url, 'tools/call', {
        name: 'gate',
        arguments: { label: 'beside-hostile' },
      });
      expect((await request(own.url, 'tasks/get', { taskId })).status).to.equal('working');
      await request(own.url, 'tasks/cancel', { taskId });
    } finally {
      await own.close();
    }
  });

  it('answers a call that would start a task busy (503, Retry-After) once maxTasks run; other calls run', async () => {
    const options: TaskOptions = { store: memoryTaskStore() };
    const own = await serveHttp({
      tasks: options,
      maxTasks: 1,
      factory: () => createMcpServer({ name: 'tasks', version: '1' }, tools, { tasks: options }),
    });
    try {
      const gate = { name: 'gate', arguments: { label: 'only-room' } };
      const { taskId } = await request(own.url, 'tools/call', gate);
      const refused = await postModern(own.url, 'tools/call', gate, {}, TASKING);
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.body.error).to.deep.include({
        code: -32000,
        message: 'Server busy: 1 tasks running; retry later',
      });
      // A tool that is no task tool needs no room of tasks.
      const plain = await request(own.url, 'tools/call', { name: 'plain', arguments: {} });
      expect(plain.content).to.deep.equal([{ type: 'text', text: 'plain answer' }]);
      await request(own.url, 'tasks/cancel', { taskId });
      await pollUntil(own.url, taskId as string, ended);
      const next = await request(own.url, 'tools/call', {
        name: 'gate',
        arguments: { label: 'next-in' },
      });
      expect(next.resultType).to.equal('task');
      await request(own.url, 'tasks/cancel', { taskId: next.taskId });
    } finally {
      await own.close();
    }
  });

  it('answers an id it never makes (huge, or not an id) with -32602 in one short line, touching no store', async () => {
    for (const taskId of ['x'.repeat(10_000), '../../etc', '']) {
      const error = await refusal(url, 'tasks/get', { taskId });
      expect(error.code).to.equal(-32602);
      expect(error.message.length).to.be.below(120);
    }
  });

  it('cancels the running call on tasks/cancel (its signal aborts), and acks a cancel of a final task', async () => {
    const { taskId } = await request(url, 'tools/call', {
      name: 'gate',
      arguments: { label: 'cancel' },
    });
    await pollUntil(url, taskId as string, (t) => t.statusMessage !== undefined);
    const ack = await request(url, 'tasks/cancel', { taskId });
    expect(ack).to.not.have.any.keys('taskId', 'status');
    const done = await pollUntil(url, taskId as string, ended);
    expect(done).to.include({ status: 'cancelled', statusMessage: 'cancelled by the client' });
    expect(signals.get('cancel')!.aborted).to.equal(true);
    expect(await request(url, 'tasks/cancel', { taskId })).to.include({ resultType: 'complete' });
    expect((await request(url, 'tasks/get', { taskId })).status).to.equal('cancelled');
  });

  it('completes a task whose tool failed (isError, for the model), and fails one whose tool broke its contract', async () => {
    const failing = await request(url, 'tools/call', { name: 'fails', arguments: {} });
    const completed = await pollUntil(url, failing.taskId as string, ended);
    expect(completed.status).to.equal('completed');
    expect(completed.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Error: no luck' }],
      isError: true,
    });
    const broken = await request(url, 'tools/call', { name: 'broken', arguments: {} });
    const failed = await pollUntil(url, broken.taskId as string, ended);
    expect(GetTaskResultV2Schema.safeParse(failed).success).to.equal(true);
    expect(failed.status).to.equal('failed');
    expect(failed).to.not.have.property('result');
    expect((failed.error as { code: number }).code).to.equal(-32603);
    expect((failed.error as { message: string }).message).to.match(/^tool "broken" panicked: /);
  });

  it('serves each task status in the form the extension’s client decodes, losing nothing', async () => {
    /** `task` as the official schemas decode it: it must pass, and come out as it went in. */
    const decoded = (task: Record<string, unknown>): void => {
      const all = GetTaskResultV2Schema.safeParse(task);
      expect(all.success, `${JSON.stringify(task)}: ${String(all.error)}`).to.equal(true);
      const { resultType: _complete, _meta: _envelope, ...view } = task;
      const detailed = DetailedTaskV2Schema.safeParse(view);
      expect(detailed.success, String(detailed.error)).to.equal(true);
      expect(JSON.parse(JSON.stringify(detailed.data))).to.deep.equal(view);
      if (task.status !== 'completed') return;
      // What the client hands its caller: the call's result, a 2026-07-28 CallToolResult.
      const result = CallToolResultV2Schema.safeParse(task.result);
      expect(result.success, `${JSON.stringify(task.result)}: ${String(result.error)}`).to.equal(
        true,
      );
      expect(JSON.parse(JSON.stringify(result.data))).to.deep.equal(task.result);
    };
    const gated = await request(url, 'tools/call', { name: 'gate', arguments: { label: 'wire' } });
    decoded(await pollUntil(url, gated.taskId as string, (t) => t.statusMessage !== undefined));
    gates.get('wire')!();
    decoded(await pollUntil(url, gated.taskId as string, ended));
    const asked = await request(url, 'tools/call', { name: 'ask', arguments: {} });
    decoded(await pollUntil(url, asked.taskId as string, (t) => t.status === 'input_required'));
    for (const name of ['fails', 'broken']) {
      const made = await request(url, 'tools/call', { name, arguments: {} });
      decoded(await pollUntil(url, made.taskId as string, ended));
    }
    await request(url, 'tasks/cancel', { taskId: asked.taskId });
    const cancelled = await pollUntil(url, asked.taskId as string, ended);
    expect(cancelled.status).to.equal('cancelled');
    decoded(cancelled);
  });

  it('keeps a task tool a task tool through wrap()', () => {
    expect(wrap(slowCount).task).to.equal(true);
    expect(() =>
      tool({ name: 'x', description: 'x', task: 'yes' as never, execute: () => '' }),
    ).to.throw(TypeError, `task must be true, false or 'required', got "yes"`);
  });

  it('cancels the call of a task that runs past its ttlMs, and forgets the task', async () => {
    const short = await serve({ store: memoryTaskStore(), ttlMs: 300 });
    try {
      const { taskId } = await request(short.url, 'tools/call', {
        name: 'gate',
        arguments: { label: 'ttl' },
      });
      expect((await request(short.url, 'tasks/get', { taskId })).status).to.equal('working');
      const deadline = Date.now() + scaled(5_000);
      let gone: { code: number } | undefined;
      while (gone === undefined && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        gone = await request(short.url, 'tasks/get', { taskId }).then(
          () => undefined,
          (err: { error: { code: number } }) => err.error,
        );
      }
      expect(gone?.code).to.equal(-32602);
      // Not left running with nowhere to put its result.
      expect(signals.get('ttl')!.aborted).to.equal(true);
    } finally {
      await short.close();
    }
  });

  it('fails the tasks still running when the server closes, saying so', async () => {
    const store = memoryTaskStore();
    const closing = await serve({ store });
    const { taskId } = await request(closing.url, 'tools/call', {
      name: 'gate',
      arguments: { label: 'close' },
    });
    await closing.close();
    const view = await store.get(taskId as string);
    expect(view?.task).to.deep.include({
      status: 'failed',
      statusMessage:
        'the server instance running this task shut down before it finished: call the tool again',
    });
    expect(signals.get('close')!.aborted).to.equal(true);
  });

  it('checks its task options when the server is made', () => {
    expect(() =>
      createMcpServer({ name: 'x', version: '1' }, tools, {
        tasks: { store: memoryTaskStore(), leaseMs: 0 },
      }),
    ).to.throw(RangeError, 'tasks.leaseMs must be a positive whole number of ms, got 0');
  });

  it('gives a 2025-11-25 session (initialize) plain results, and refuses it a task-only tool', async () => {
    const session = await openSession(url);
    const plain = await post(url, callRequest(1, 'slow_count', { to: 1, step_ms: 0 }), session)
      .reply;
    expect(plain.messages.at(-1)!.result).to.deep.equal({
      content: [{ type: 'text', text: 'counted to 1' }],
    });
    const refused = await post(url, callRequest(2, 'only_task'), session).reply;
    expect(refused.messages.at(-1)!.error!.code).to.equal(-32021);
  });

  it('keeps a running task’s admission slot (maxConcurrentCalls) until the task ends', async () => {
    const options: TaskOptions = { store: memoryTaskStore() };
    const bounded = await serveHttp({
      tasks: options,
      maxConcurrentCalls: 1,
      factory: () => createMcpServer({ name: 'one', version: '1' }, tools, { tasks: options }),
    });
    try {
      const { taskId } = await request(bounded.url, 'tools/call', {
        name: 'gate',
        arguments: { label: 'slot' },
      });
      await pollUntil(bounded.url, taskId as string, (t) => t.statusMessage !== undefined);
      const busy = await postModern(
        bounded.url,
        'tools/call',
        { name: 'plain', arguments: {} },
        {},
        TASKING,
      );
      expect(busy.status).to.equal(503);
      gates.get('slot')!();
      await pollUntil(bounded.url, taskId as string, ended);
      const plain = await request(bounded.url, 'tools/call', { name: 'plain', arguments: {} });
      expect(plain.content).to.deep.equal([{ type: 'text', text: 'plain answer' }]);
    } finally {
      await bounded.close();
    }
  });
});
