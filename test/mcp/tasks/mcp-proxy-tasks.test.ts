/**
 * MCP tasks through a proxy (`createMcpServer` over `connectMcp`'s tools with `tasks`, what
 * `agenttool serve --mcp-url ... --tasks` runs), in both revisions of the upstream: a call its
 * server runs as a task is the proxy's own task (its own id, never the upstream's), with the
 * upstream's progress, questions, result and error; a client that takes no tasks gets what the
 * upstream gives such a client: a plain result, or the same refusal. docs/mcp.md, "Tasks through
 * a proxy".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EMPTY } from 'rxjs';
import { z } from 'zod';
import { connectMcp, httpTransport, type McpRemote } from '../../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  memoryTaskStore,
  serveHttp,
  type McpHttpServer,
  type TaskStore,
} from '../../../adapters/mcp-server/index.js';
import { rawTool, tool, type Tool } from '../../../index.js';
import { ASKABLE } from '../../support/modern.js';
import { ended, pollUntil, refusal, request } from '../../support/tasks.js';
import { scaled } from '../../support/time.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

/** A store that notes the id of every task made in it: the upstream's ids, never to be seen. */
function notingStore(store: TaskStore, ids: Set<string>): TaskStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'create') return Reflect.get(target, key, receiver) as unknown;
      return (view: { taskId: string }, ...rest: unknown[]) => {
        ids.add(view.taskId);
        return (target.create as (...a: unknown[]) => unknown).call(target, view, ...rest);
      };
    },
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The upstream of MCP 2026-07-28: tools its server runs as tasks, and one it never does. */
const upstreamTools: Tool[] = [
  tool({
    name: 'greet',
    description: 'Greets at once (never a task).',
    parameters: z.object({ name: z.string() }),
    execute: ({ name }) => `Hello, ${name}!`,
  }),
  tool({
    name: 'report',
    description: 'Works a moment, reporting progress, then answers; a task for clients of tasks.',
    parameters: z.object({ topic: z.string() }),
    task: true,
    async *execute({ topic }) {
      yield { progress: 1, total: 2, message: `reading about ${topic}` };
      await pause(50);
      return `a report on ${topic}`;
    },
  }),
  tool({
    name: 'deploy',
    description: 'Asks to confirm once under way, then deploys; only as a task.',
    parameters: z.object({ target: z.string() }),
    task: 'required',
    execute: async ({ target }, context) => {
      await pause(20);
      const answer = await context.elicit({
        key: 'confirm_deploy',
        message: `Deploy to ${target}?`,
        schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return answer.action === 'accept' && answer.content.ok === true
        ? `deployed to ${target}`
        : `kept ${target} as it was`;
    },
  }),
  rawTool({
    name: 'broken',
    description: 'Ends without a result: a failed task.',
    parameters: { type: 'object', properties: {} },
    task: true,
    execute: () => EMPTY,
  }),
];

/** Every UUID `value` carries but `own`. */
function otherIds(value: unknown, own: string): string[] {
  const found = JSON.stringify(value).match(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
  );
  return (found ?? []).filter((id) => id !== own);
}

describe('MCP tasks through a proxy (createMcpServer over connectMcp, with tasks)', function () {
  this.timeout(scaled(60_000));
  const upstreamIds = new Set<string>();
  let upstream: McpHttpServer;
  let modern: McpRemote;
  let legacy: McpRemote;
  let proxy: McpHttpServer;
  let url: URL;

  before(async () => {
    const store = notingStore(memoryTaskStore(), upstreamIds);
    upstream = await serveHttp({
      port: 0,
      host: '127.0.0.1',
      tasks: { store },
      factory: () =>
        createMcpServer({ name: 'upstream', version: '1' }, upstreamTools, { tasks: { store } }),
    });
    modern = await connectMcp(httpTransport(upstream.url), { prefix: 'now' });
    // server-everything speaks MCP 2025-11-25: `simulate-research-query` runs only as its task.
    legacy = await connectMcp(
      new StdioClientTransport({
        command: process.execPath,
        args: [everything, 'stdio'],
        stderr: 'pipe',
      }),
      { prefix: 'then', versionNegotiation: { mode: 'legacy' } },
    );
    const tools = [...modern.tools, ...legacy.tools];
    const tasks = { store: memoryTaskStore() };
    proxy = await serveHttp({
      port: 0,
      host: '127.0.0.1',
      tasks,
      factory: () => createMcpServer({ name: 'proxy', version: '1' }, tools, { tasks }),
    });
    url = proxy.endpoint;
  });
  after(async () => {
    await proxy?.close();
    await modern?.close();
    await legacy?.close();
    await upstream?.close();
  });

  /** Calls `name` through the proxy as a client of tasks; its task, ended. */
  async function taskOf(name: string, args: Record<string, unknown>) {
    const created = await request(url, 'tools/call', { name, arguments: args });
    expect(created).to.include({ resultType: 'task', status: 'working' });
    const taskId = created.taskId as string;
    return { taskId, created, done: () => pollUntil(url, taskId, ended) };
  }

  describe('an upstream of MCP 2026-07-28 (the tasks extension)', () => {
    it('serves its task as the proxy’s own task: its own id, the upstream’s result', async () => {
      const { taskId, created, done } = await taskOf('now__report', { topic: 'bees' });
      const task = await done();
      expect(task.status).to.equal('completed');
      expect(task.result).to.deep.include({
        content: [{ type: 'text', text: 'a report on bees' }],
        resultType: 'complete',
      });
      expect(upstreamIds.size).to.be.greaterThan(0);
      expect(upstreamIds.has(taskId)).to.equal(false);
      expect(otherIds([created, task], taskId)).to.deep.equal([]);
    });

    it('asks the upstream task’s question through its own, under the upstream’s key', async () => {
      const { taskId, done } = await taskOf('now__deploy', { target: 'staging' });
      const asking = await pollUntil(url, taskId, (t) => t.status !== 'working');
      expect(asking.status).to.equal('input_required');
      const requests = asking.inputRequests as Record<string, { params: { message: string } }>;
      expect(Object.keys(requests)).to.deep.equal(['confirm_deploy']);
      expect(requests.confirm_deploy!.params.message).to.equal('Deploy to staging?');
      await request(url, 'tasks/update', {
        taskId,
        inputResponses: { confirm_deploy: { action: 'accept', content: { ok: true } } },
      });
      const task = await done();
      expect(task.result).to.deep.include({
        content: [{ type: 'text', text: 'deployed to staging' }],
      });
      expect(otherIds(task, taskId)).to.deep.equal([]);
    });

    it('fails its task with the upstream task’s error, code and message as they came', async () => {
      const direct = await request(upstream.url, 'tools/call', { name: 'broken', arguments: {} });
      const theirs = await pollUntil(upstream.url, direct.taskId as string, ended);
      const { taskId, done } = await taskOf('now__broken', {});
      const ours = await done();
      expect(ours.status).to.equal('failed');
      expect(ours.error).to.deep.equal(theirs.error);
      expect(ours.statusMessage).to.equal((theirs.error as { message: string }).message);
      expect(otherIds(ours, taskId)).to.deep.equal([]);
    });

    it('answers a sync tool at once, no task', async () => {
      const result = await request(url, 'tools/call', {
        name: 'now__greet',
        arguments: { name: 'Ada' },
      });
      expect(result).to.deep.include({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
      expect(result.resultType).to.not.equal('task');
    });

    it('to a client without tasks: a plain result, and the upstream’s refusal as it is', async () => {
      const plain = await request(
        url,
        'tools/call',
        { name: 'now__report', arguments: { topic: 'ants' } },
        ASKABLE,
      );
      expect(plain).to.deep.include({
        resultType: 'complete',
        content: [{ type: 'text', text: 'a report on ants' }],
      });
      const args = { arguments: { target: 'prod' } };
      const theirs = await refusal(
        upstream.url,
        'tools/call',
        { name: 'deploy', ...args },
        ASKABLE,
      );
      const ours = await refusal(url, 'tools/call', { name: 'now__deploy', ...args }, ASKABLE);
      expect(theirs.code).to.equal(-32021);
      expect(ours).to.deep.equal(theirs);
    });
  });

  describe('an upstream of MCP 2025-11-25 (execution.taskSupport)', () => {
    it('serves its task as the proxy’s own task, without the upstream’s id in the result', async () => {
      const { taskId, created, done } = await taskOf('then__simulate-research-query', {
        topic: 'bees',
        ambiguous: false,
      });
      const task = await done();
      expect(task.status).to.equal('completed');
      const result = task.result as {
        content: { text: string }[];
        _meta?: Record<string, unknown>;
      };
      expect(result.content[0]!.text).to.match(/^# Research Report: bees\n/);
      expect(result._meta ?? {}).to.not.have.property('io.modelcontextprotocol/related-task');
      expect(otherIds([created, task], taskId)).to.deep.equal([]);
    });

    it('refuses a client without tasks as server-everything refuses one', async () => {
      // server-everything (SDK v1) answers a call without `task` of a tool that runs only as a
      // task with an `isError` result saying so.
      const direct = new Client({ name: 'direct', version: '1' });
      await direct.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [everything, 'stdio'],
          stderr: 'pipe',
        }),
      );
      const args = { topic: 'bees' };
      const theirs = await direct
        .callTool({ name: 'simulate-research-query', arguments: args })
        .finally(() => direct.close());
      const ours = await request(
        url,
        'tools/call',
        { name: 'then__simulate-research-query', arguments: args },
        ASKABLE,
      );
      expect(theirs.isError).to.equal(true);
      expect(JSON.stringify(theirs.content)).to.contain('-32601');
      expect({ content: ours.content, isError: ours.isError }).to.deep.equal(theirs);
    });
  });
});
