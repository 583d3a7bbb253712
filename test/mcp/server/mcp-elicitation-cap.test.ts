import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp, type McpRemote } from '../../../adapters/mcp-client/index.js';
import { createMcpServer, type McpServerOptions } from '../../../adapters/mcp-server/index.js';
import {
  executeBatch,
  type ElicitResult,
  type ExecuteOptions,
  type ExecutionEvent,
  type Tool,
} from '../../../index.js';
import { scaled } from '../../support/time.js';

/** What the flooding server tells of its questions: how many were answered, and why the others were not. */
interface Flood {
  answered: number;
  refused: string[];
}

/**
 * A server whose one tool, `flood`, sends `count` elicitation/create requests at once during its
 * call, then answers with how they went. Written with the SDK alone: agenttool's own server caps
 * its tools' questions.
 */
function floodServer(count: number): Server {
  const server = new Server({ name: 'flood', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'flood', description: 'Asks many questions.', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    const asked = Array.from({ length: count }, () =>
      server
        .elicitInput(
          {
            mode: 'form',
            message: 'Go on?',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          },
          { relatedRequestId: extra.requestId },
        )
        .then(
          () => undefined,
          (err: unknown) => (err as Error).message,
        ),
    );
    const outcomes = await Promise.all(asked);
    const refused = outcomes.filter((o): o is string => o !== undefined);
    const flood: Flood = { answered: count - refused.length, refused: [...new Set(refused)] };
    return { content: [{ type: 'text', text: JSON.stringify(flood) }] };
  });
  return server;
}

const yes: ElicitResult = { action: 'accept', content: { ok: true } };

describe('MCP client: a server that floods one call with questions (elicitation/create)', function () {
  this.timeout(scaled(20_000));
  const open: McpRemote[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((remote) => remote.close()));
  });

  async function connect(count: number): Promise<McpRemote> {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await floodServer(count).connect(a);
    const remote = await connectMcp(b);
    open.push(remote);
    return remote;
  }

  /** Served by createMcpServer and connected to again: a proxy, as `agenttool serve --mcp` is. */
  async function proxy(tools: Iterable<Tool>, options: McpServerOptions = {}): Promise<McpRemote> {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ name: 'proxy', version: '1.0.0' }, tools, options).connect(a);
    const remote = await connectMcp(b);
    open.push(remote);
    return remote;
  }

  /** Runs the remote tool once as call c1; returns what it tells, and how often the elicitor was asked. */
  async function run(tool: Tool, options: ExecuteOptions = {}) {
    let asked = 0;
    const events: ExecutionEvent[] = await lastValueFrom(
      executeBatch([{ tool, call: { id: 'c1', args: '{}' } }], {
        ...options,
        elicitor: () => {
          asked++;
          return yes;
        },
      }).pipe(toArray()),
    );
    const last = events.at(-1)!;
    expect(last.error).to.equal(undefined);
    const flood = JSON.parse(String(last.result?.output)) as Flood;
    return { flood, asked, shown: events.filter((e) => e.question !== undefined).length };
  }

  it("asks the calling job's elicitor 16 times and refuses the rest, the call going on", async () => {
    const remote = await connect(500);
    const { flood, asked, shown } = await run(remote.tools[0]!);
    expect(asked).to.equal(16);
    expect(shown).to.equal(32); // asked, then answered
    expect(flood.answered).to.equal(16);
    expect(flood.refused).to.have.length(1);
    expect(flood.refused[0]).to.include(
      'elicit: call "c1" may ask at most 16 questions (maxQuestions)',
    );
  });

  it("takes the batch's maxQuestions", async () => {
    const remote = await connect(10);
    const { flood, asked } = await run(remote.tools[0]!, { maxQuestions: 3 });
    expect([asked, flood.answered]).to.deep.equal([3, 3]);
    expect(flood.refused[0]).to.include('may ask at most 3 questions');
  });

  it('refuses past the cap at the proxy too: 2,000 questions, 16 reach the outer client', async () => {
    const upstream = await connect(2_000);
    const outer = await proxy(upstream.tools);
    const { flood, asked } = await run(outer.tools[0]!);
    expect(asked).to.equal(16);
    expect(flood.answered).to.equal(16);
    expect(flood.refused).to.have.length(1);
    expect(flood.refused[0]).to.match(/may ask at most 16 questions \(maxQuestions\)$/);
  });

  it("takes createMcpServer's maxQuestions: a proxy capped at 2 lets 2 questions out", async () => {
    const upstream = await connect(100);
    const outer = await proxy(upstream.tools, { maxQuestions: 2 });
    const { flood, asked } = await run(outer.tools[0]!);
    expect(asked).to.equal(2);
    expect(flood.answered).to.equal(2);
    expect(flood.refused[0]).to.match(/may ask at most 2 questions \(maxQuestions\)$/);
  });
});
