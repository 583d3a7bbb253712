/**
 * The AI SDK's MCP client (`@ai-sdk/mcp`), which speaks MCP 2026-07-28, against agenttool's
 * server: it discovers the modern era, lists the tools, runs them as AI SDK tools, gets a tool's
 * question through its elicitation handler, and falls back to 2025-11-25 when told to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMCPClient, ElicitationRequestSchema, type MCPClient } from '@ai-sdk/mcp';
import { expect } from 'chai';
import { Observable } from 'rxjs';
import { McpHttpHandler, createMcpServer } from '../../../adapters/mcp-server/index.js';
import { rawTool, type ToolEvent } from '../../../index.js';
import { echo } from '../../support/tools.js';
import { scaled } from '../../support/time.js';

/** Asks whether to go ahead, then says what it was told. */
const confirm = rawTool({
  name: 'confirm',
  description: 'Asks to confirm, then answers with the reply.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      void context
        .elicit({
          message: 'Go ahead?',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        })
        .then((answer) => {
          subscriber.next({ final: true, result: { output: `told ${JSON.stringify(answer)}` } });
          subscriber.complete();
        });
    }),
});

describe('the AI SDK MCP client (@ai-sdk/mcp) against createMcpServer', function () {
  this.timeout(scaled(30_000));
  let server: Server;
  let handler: McpHttpHandler;
  let url: URL;
  /** The MCP-Protocol-Version of every POST the server got. */
  const versions = new Set<string>();

  before(async () => {
    handler = new McpHttpHandler({
      factory: () => createMcpServer({ name: 'agenttool', version: '1' }, [echo, confirm]),
    });
    server = createServer((req, res) => {
      const version = req.headers['mcp-protocol-version'];
      if (req.method === 'POST' && typeof version === 'string') versions.add(version);
      void handler.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  });
  after(async () => {
    await handler.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => versions.clear());

  /** An AI SDK tool's execute, as the AI SDK calls it. */
  async function run(client: MCPClient, name: string, args: object): Promise<unknown> {
    const tools = await client.tools();
    const found = tools[name] as unknown as {
      execute: (args: object, options: object) => Promise<unknown>;
    };
    return found.execute(args, { toolCallId: 'c1', messages: [] });
  }

  it('discovers 2026-07-28, lists the tools and runs one as an AI SDK tool', async () => {
    const client = await createMCPClient({ transport: { type: 'http', url: url.href } });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.deep.equal(['echo', 'confirm']);
      const result = (await run(client, 'echo', { text: 'hi' })) as {
        content: { text: string }[];
      };
      expect(result.content[0]!.text).to.equal('hi');
      expect([...versions]).to.deep.equal(['2026-07-28']);
    } finally {
      await client.close();
    }
  });

  it("answers a tool's question through its elicitation handler (input_required and retry)", async () => {
    const client = await createMCPClient({
      transport: { type: 'http', url: url.href },
      capabilities: { elicitation: {} },
    });
    const asked: string[] = [];
    client.onElicitationRequest(ElicitationRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    try {
      const result = (await run(client, 'confirm', {})) as { content: { text: string }[] };
      expect(asked).to.deep.equal(['Go ahead?']);
      expect(result.content[0]!.text).to.equal('told {"action":"accept","content":{"ok":true}}');
      expect([...versions]).to.deep.equal(['2026-07-28']);
    } finally {
      await client.close();
    }
  });

  it('speaks 2025-11-25 when discovery is turned off', async () => {
    const client = await createMCPClient({
      transport: { type: 'http', url: url.href },
      protocolVersionDiscovery: false,
    });
    try {
      const result = (await run(client, 'echo', { text: 'legacy' })) as {
        content: { text: string }[];
      };
      expect(result.content[0]!.text).to.equal('legacy');
      expect([...versions]).to.deep.equal(['2025-11-25']);
    } finally {
      await client.close();
    }
  });
});
