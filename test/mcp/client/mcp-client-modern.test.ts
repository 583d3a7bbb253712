/**
 * `connectMcp` in MCP 2026-07-28: against agenttool's own server and against a modern-only server
 * of the SDK's v2 line whose tool answers `input_required`; questions answered through the
 * calling job's elicitor, each to its own call.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connectMcp, httpTransport, type McpRemote } from '../../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { hangTool } from '../../support/tools.js';
import {
  executeBatch,
  tool,
  type ElicitResult,
  type ExecutionEvent,
  type Tool,
} from '../../../index.js';
import { scaled } from '../../support/time.js';

const MODERN = '2026-07-28';

/** Asks which colour, and says what it was told. */
const colour = tool({
  name: 'colour',
  description: 'Asks for a colour.',
  parameters: z.object({ who: z.string() }),
  async *execute({ who }, context) {
    yield { progress: 1, message: `asking ${who}` };
    const answer = await context.elicit({
      message: `Which colour, ${who}?`,
      schema: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] },
    });
    yield { progress: 2, message: 'answered' };
    return `${who}: ${JSON.stringify(answer)}`;
  },
});

const hanging = hangTool();
const hang = hanging.tool;

function find(remote: McpRemote, name: string): Tool {
  const found = remote.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

/** Runs `jobs` with an elicitor that answers each question with the asking job's id. */
function runAnswered(jobs: { tool: Tool; args: object }[]): Promise<ExecutionEvent[]> {
  return lastValueFrom(
    executeBatch(
      jobs.map((job, i) => ({
        tool: job.tool,
        call: { id: `job${i}`, args: JSON.stringify(job.args) },
      })),
      {
        elicitor: (_request, call): ElicitResult => ({
          action: 'accept',
          content: { colour: `colour of ${call.id}` },
        }),
      },
    ).pipe(toArray()),
  );
}

function finals(events: ExecutionEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of events)
    if (event.final) out[event.callId] = String(event.result?.output ?? event.error?.message);
  return out;
}

describe('connectMcp: MCP 2026-07-28', function () {
  this.timeout(scaled(20_000));
  let http: McpHttpServer;
  const opened: McpRemote[] = [];

  before(async () => {
    http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'modern', version: '1' }, [colour, hang]),
    });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });
  after(() => http.close());

  it('speaks 2026-07-28 to a server that offers it, and 2025-11-25 to one that does not', async () => {
    const modern = await connectMcp(httpTransport(http.url));
    opened.push(modern);
    expect(modern.protocolVersion).to.equal(MODERN);
    expect(modern.tools.map((t) => t.name)).to.deep.equal(['colour', 'hang']);

    const [a, b] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ name: 'legacy', version: '1' }, [colour]).connect(a);
    const legacy = await connectMcp(b);
    opened.push(legacy);
    expect(legacy.protocolVersion).to.equal('2025-11-25');
  });

  it("answers each call's question through its own job, with the call's progress", async () => {
    const remote = await connectMcp(httpTransport(http.url));
    opened.push(remote);
    const events = await runAnswered([
      { tool: find(remote, 'colour'), args: { who: 'ann' } },
      { tool: find(remote, 'colour'), args: { who: 'bob' } },
    ]);
    expect(finals(events)).to.deep.equal({
      job0: 'ann: {"action":"accept","content":{"colour":"colour of job0"}}',
      job1: 'bob: {"action":"accept","content":{"colour":"colour of job1"}}',
    });
    const progress = events
      .filter((e) => !e.final && e.callId === 'job0' && e.result !== undefined)
      .map((e) => e.result!.output);
    expect(progress).to.include.members(['asking ann', 'answered']);
  });

  it('unsubscribing closes the call on the server', async () => {
    const remote = await connectMcp(httpTransport(http.url));
    opened.push(remote);
    const { started: running, cancelled } = hanging.watch();
    const call = { id: 'h', args: '{}' };
    const subscription = executeBatch([{ tool: find(remote, 'hang'), call }]).subscribe();
    await running;
    subscription.unsubscribe();
    await cancelled;
  });
});

describe('connectMcp against a modern-only server of the SDK v2 line', function () {
  this.timeout(scaled(20_000));
  let server: HttpServer;
  let url: URL;
  let effects = 0;

  before(async () => {
    const factory = (): McpServer => {
      const mcp = new McpServer({ name: 'modern-only', version: '1' });
      mcp.registerTool(
        'confirm',
        { description: 'Asks to confirm, then acts.', inputSchema: z.object({ what: z.string() }) },
        ({ what }, ctx) => {
          const answer = ctx.mcpReq.inputResponses?.confirm as
            { action: string; content?: { ok?: boolean } } | undefined;
          if (answer === undefined)
            return inputRequired({
              inputRequests: {
                confirm: inputRequired.elicit({
                  message: `Do ${what}?`,
                  requestedSchema: {
                    type: 'object',
                    properties: { ok: { type: 'boolean' } },
                    required: ['ok'],
                  },
                }),
              },
            });
          effects++;
          return {
            content: [
              { type: 'text', text: `${what}: ${answer.action} ${String(answer.content?.ok)}` },
            ],
          };
        },
      );
      return mcp;
    };
    const handler = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("connects, and answers the tool's input_required through the calling job's elicitor", async () => {
    const remote = await connectMcp(httpTransport(url));
    try {
      expect(remote.protocolVersion).to.equal(MODERN);
      const asked: string[] = [];
      const events = await lastValueFrom(
        executeBatch(
          [{ tool: find(remote, 'confirm'), call: { id: 'c1', args: '{"what":"deploy"}' } }],
          {
            elicitor: (request): ElicitResult => {
              asked.push(request.message);
              return { action: 'accept', content: { ok: true } };
            },
          },
        ).pipe(toArray()),
      );
      expect(asked).to.deep.equal(['Do deploy?']);
      expect(finals(events)).to.deep.equal({ c1: 'deploy: accept true' });
      expect(effects).to.equal(1);
    } finally {
      await remote.close();
    }
  });
});
