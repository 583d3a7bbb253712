import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { lastValueFrom, Observable, of, toArray } from 'rxjs';
import {
  connectMcp,
  type McpClientOptions,
  type McpRemote,
} from '../../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../../adapters/mcp-server/index.js';
import {
  executeBatch,
  tool,
  type ElicitRequest,
  type ElicitResult,
  type Elicitor,
  type ExecutionEvent,
  type Tool,
} from '../../../index.js';

const question: ElicitRequest = {
  message: 'Deploy to which environment?',
  schema: {
    type: 'object',
    properties: {
      env: { type: 'string', enum: ['staging', 'prod'] },
      force: { type: 'boolean', default: false },
    },
    required: ['env'],
  },
};

/** A tool that asks, then answers with what it was told. */
const deploy = tool({
  name: 'deploy',
  description: 'Asks where to deploy.',
  execute: async (_args, context) => JSON.stringify(await context.elicit(question)),
});

/** `tools` served by createMcpServer, connected to with connectMcp; also the server. */
async function serve(tools: Iterable<Tool>, options: McpClientOptions = {}) {
  const server = createMcpServer({ name: 'asks', version: '1.0.0' }, tools);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const remote = await connectMcp(b, options);
  return { remote, server };
}

/** Runs one call of `tool` with `elicitor`; resolves with the batch's events. */
function run(tool: Tool, elicitor?: Elicitor): Promise<ExecutionEvent[]> {
  return lastValueFrom(
    executeBatch([{ tool, call: { id: 'c1', args: '{}' } }], elicitor ? { elicitor } : {}).pipe(
      toArray(),
    ),
  );
}

function answerOf(events: ExecutionEvent[]): unknown {
  const last = events.at(-1)!;
  return JSON.parse(String(last.result?.output));
}

describe("MCP client: a server's question answered through the calling job (elicitation/create)", () => {
  const open: McpRemote[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((remote) => remote.close()));
  });

  it("is answered by the executor's elicitor, and shows on the call in the batch's events", async () => {
    const { remote } = await serve([deploy]);
    open.push(remote);
    const asked: [ElicitRequest, string][] = [];
    const events = await run(remote.tools[0]!, (request, call) => {
      asked.push([request, call.id]);
      return Promise.resolve({ action: 'accept', content: { env: 'prod' } });
    });
    expect(asked).to.deep.equal([[question, 'c1']]);
    // The client fills in the defaults of the fields an accepted answer leaves out.
    const answer = { action: 'accept', content: { env: 'prod', force: false } };
    expect(answerOf(events)).to.deep.equal(answer);
    expect(events.slice(0, 2)).to.deep.equal([
      { index: 0, callId: 'c1', final: false, question },
      {
        index: 0,
        callId: 'c1',
        final: false,
        question,
        answer: { action: 'accept', content: { env: 'prod' } },
      },
    ]);
  });

  it('does not time the call out while a person answers: the timeout waits for the answer, then starts again', async () => {
    const { remote } = await serve([deploy], { timeout: 150 });
    open.push(remote);
    const events = await run(
      remote.tools[0]!,
      () =>
        new Promise<ElicitResult>((resolve) =>
          setTimeout(() => resolve({ action: 'accept', content: { env: 'staging' } }), 400),
        ),
    );
    expect(events.at(-1)!.error).to.equal(undefined);
    expect(answerOf(events)).to.deep.equal({
      action: 'accept',
      content: { env: 'staging', force: false },
    });
  });

  it('declares elicitation, and answers decline when the executor has no elicitor', async () => {
    const { remote, server } = await serve([deploy]);
    open.push(remote);
    expect(server.getClientCapabilities()?.elicitation).to.not.equal(undefined);
    expect(answerOf(await run(remote.tools[0]!))).to.deep.equal({ action: 'decline' });
  });

  it('declares no elicitation with elicitor: false, so the server asks nothing', async () => {
    const { remote, server } = await serve([deploy], { elicitor: false });
    open.push(remote);
    expect(server.getClientCapabilities()?.elicitation).to.equal(undefined);
    let asked = 0;
    const events = await run(remote.tools[0]!, () => {
      asked++;
      return { action: 'accept', content: { env: 'prod' } };
    });
    expect(answerOf(events)).to.deep.equal({ action: 'decline' });
    expect(asked).to.equal(0);
  });

  it('finds the call of each question when several calls of the session ask at once', async () => {
    const who = tool({
      name: 'who',
      description: 'Asks who it is talking to.',
      execute: async (_args, context) =>
        JSON.stringify(
          await context.elicit({
            message: 'Who is this?',
            schema: { type: 'object', properties: { who: { type: 'string' } } },
          }),
        ),
    });
    const { remote } = await serve([who]);
    open.push(remote);
    const jobs = ['c1', 'c2', 'c3'].map((id) => ({
      tool: remote.tools[0]!,
      call: { id, args: '{}' },
    }));
    // Each call is answered with its own id, once every call has asked.
    const waiting: (() => void)[] = [];
    const events = await lastValueFrom(
      executeBatch(jobs, {
        elicitor: (_request, call) =>
          new Promise<ElicitResult>((resolve) => {
            waiting.push(() => resolve({ action: 'accept', content: { who: call.id } }));
            if (waiting.length === jobs.length) for (const answer of waiting) answer();
          }),
      }).pipe(toArray()),
    );
    const finals = events.filter((e) => e.final);
    expect(
      finals.map((e) => [e.callId, JSON.parse(String(e.result?.output))]),
    ).to.have.deep.members(
      ['c1', 'c2', 'c3'].map((id) => [id, { action: 'accept', content: { who: id } }]),
    );
  });

  it('gives a question asked while no call runs to the elicitor option, with call id ""', async () => {
    const server = new Server({ name: 'eager', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const seen: string[] = [];
    const remote = await connectMcp(b, {
      elicitor: (request, call) => {
        seen.push(`${call.id}|${request.message}`);
        return of<ElicitResult>({ action: 'accept', content: { env: 'staging' } });
      },
    });
    open.push(remote);
    const answer = await server.elicitInput({
      message: question.message,
      requestedSchema: question.schema as never,
    });
    expect(seen).to.deep.equal([`|${question.message}`]);
    expect(answer).to.deep.equal({ action: 'accept', content: { env: 'staging', force: false } });
  });

  it("reaches the outer client's elicitor through a proxy (client -> createMcpServer(remote tools) -> server that asks)", async () => {
    const inner = await serve([deploy]);
    open.push(inner.remote);
    const proxy = await serve(inner.remote.tools);
    open.push(proxy.remote);
    const asked: ElicitRequest[] = [];
    const events = await run(proxy.remote.tools[0]!, (request) => {
      asked.push(request);
      return { action: 'accept', content: { env: 'staging', force: true } };
    });
    expect(asked).to.deep.equal([question]);
    expect(answerOf(events)).to.deep.equal({
      action: 'accept',
      content: { env: 'staging', force: true },
    });
    expect(events.filter((e) => e.question !== undefined)).to.have.length(2);
  });

  it("ends the inner tool's question with cancel when the outer call is cancelled through a proxy", async () => {
    let innerAnswer!: (answer: ElicitResult) => void;
    const answered = new Promise<ElicitResult>((resolve) => (innerAnswer = resolve));
    const waits = tool({
      name: 'waits',
      description: 'Asks, and tells what it was told.',
      execute: async (_args, context) => {
        innerAnswer(await context.elicit(question));
        return 'done';
      },
    });
    const inner = await serve([waits]);
    open.push(inner.remote);
    const proxy = await serve(inner.remote.tools);
    open.push(proxy.remote);
    let asked!: () => void;
    const isAsked = new Promise<void>((resolve) => (asked = resolve));
    let closed = false;
    const subscription = executeBatch(
      [{ tool: proxy.remote.tools[0]!, call: { id: 'c1', args: '{}' } }],
      {
        elicitor: () =>
          new Observable<ElicitResult>(() => {
            asked();
            return () => (closed = true);
          }),
      },
    ).subscribe();
    await isAsked;
    subscription.unsubscribe();
    expect(closed).to.equal(true);
    expect(await answered).to.deep.equal({ action: 'cancel' });
  });
});
