/**
 * `agenttool serve --mcp-url` field by field in MCP 2026-07-28: one client reaches a server of the
 * SDK's v2 line directly, another through `agenttool serve --http 0 --mcp-url <it>`; what each sees
 * is compared: capabilities, instructions, tools/list, a call's result, the log messages of a call,
 * and the unknown-tool error. test/mcp/mcp-proxy-serve-everything.test.ts does 2025-11-25.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import {
  Client,
  LOG_LEVEL_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import { bundledTools } from '../../cli/tools/index.js';
import { serveCli, type ServingCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

const INSTRUCTIONS = 'Call greet with a name; it logs what it does.';

/** The upstream: `greet` logs twice (info, then debug) and answers, with logging declared. */
function upstream(): McpServer {
  const mcp = new McpServer(
    { name: 'greeter', version: '1.0.0' },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  mcp.registerTool(
    'greet',
    {
      description: 'Greets someone.',
      inputSchema: z.object({ name: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ name }, ctx) => {
      await ctx.mcpReq.log('info', `greeting ${name}`, 'greeter');
      await ctx.mcpReq.log('debug', { name });
      return { content: [{ type: 'text', text: `Hello, ${name}!` }] };
    },
  );
  // Asks the client for its roots (in 2026-07-28 an input request of the call; before it, the
  // SDK sends roots/list on the session) and answers with their URIs.
  mcp.registerTool('where', { description: 'Says where it may work.' }, (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.roots as { roots?: { uri: string }[] } | undefined;
    if (answer === undefined)
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return { content: [{ type: 'text', text: (answer.roots ?? []).map((r) => r.uri).join(' ') }] };
  });
  return mcp;
}

/** A 2026-07-28 client of `url`, and the log messages it got. */
async function reader(url: URL): Promise<{ client: Client; logs: unknown[] }> {
  const client = new Client(
    { name: 'reader', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const logs: unknown[] = [];
  client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params));
  await client.connect(new StreamableHTTPClientTransport(url));
  expect(client.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
  return { client, logs };
}

/** What a call ends with: its result, or its JSON-RPC error's code, message and data. */
async function outcome(client: Client, name: string, args: Record<string, unknown>) {
  try {
    const meta = { [LOG_LEVEL_META_KEY]: 'debug' };
    return { result: await client.callTool({ name, arguments: args, _meta: meta }) };
  } catch (err) {
    const { code, message, data } = err as { code?: unknown; message?: unknown; data?: unknown };
    return { error: { code, message, data } };
  }
}

describe('agenttool serve --mcp-url changes nothing in MCP 2026-07-28: a v2 SDK server, directly and through it', function () {
  this.timeout(scaled(60_000));
  let http: Server;
  let served: ServingCli;
  let direct: { client: Client; logs: unknown[] };
  let proxied: { client: Client; logs: unknown[] };

  before(async () => {
    const handler = toNodeHandler(createMcpHandler(upstream));
    http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    served = serveCli(['--mcp-url', url.href]);
    direct = await reader(url);
    proxied = await reader(await served.url);
  });
  after(async () => {
    await direct?.client.close();
    await proxied?.client.close();
    served?.child.kill('SIGTERM');
    await served?.done;
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it('declares the capabilities of the upstream it honours: tools and logging', () => {
    const theirs = direct.client.getServerCapabilities()!;
    expect(theirs.logging).to.deep.equal({});
    // Before, `tools.listChanged` too, which the upstream does not declare.
    expect(proxied.client.getServerCapabilities()).to.deep.equal({
      tools: theirs.tools,
      logging: theirs.logging,
    });
  });

  it('gives the same instructions', () => {
    expect(direct.client.getInstructions()).to.equal(INSTRUCTIONS);
    expect(proxied.client.getInstructions()).to.equal(INSTRUCTIONS);
  });

  it("lists the upstream's tools as it lists them, beside the bundled tools", async () => {
    const theirs = (await direct.client.listTools()).tools;
    const bundled = new Set(bundledTools.map((tool) => tool.name));
    const ours = (await proxied.client.listTools()).tools.filter((t) => !bundled.has(t.name));
    expect(ours).to.deep.equal(theirs);
  });

  it('answers a call with the same result, and its log messages as log messages', async () => {
    const theirs = await outcome(direct.client, 'greet', { name: 'Ada' });
    expect(await outcome(proxied.client, 'greet', { name: 'Ada' })).to.deep.equal(theirs);
    expect(direct.logs).to.have.length(2);
    expect(proxied.logs).to.deep.equal(direct.logs);
  });

  it('refuses an unknown tool in the shape the upstream gives it', async () => {
    const theirs = await outcome(direct.client, 'no-such-tool', {});
    // Before, the proxy answered its own -32602 `unknown tool "no-such-tool"`.
    expect(await outcome(proxied.client, 'no-such-tool', {})).to.deep.equal(theirs);
  });
});

describe('agenttool serve --mcp-url: a 2026-07-28 upstream asks for roots', function () {
  this.timeout(scaled(60_000));

  it("gets the roots of a 2025-11-25 client of the proxy, as it gets a client's directly", async () => {
    const handler = toNodeHandler(createMcpHandler(upstream));
    const http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    const served = serveCli(['--mcp-url', url.href]);
    const rooted = async (at: URL, mode: 'legacy' | 'auto') => {
      const client = new Client(
        { name: 'rooted', version: '1' },
        { versionNegotiation: { mode }, capabilities: { roots: {} } },
      );
      client.setRequestHandler('roots/list', () => ({
        roots: [{ uri: 'file:///work/client-root' }],
      }));
      await client.connect(new StreamableHTTPClientTransport(at));
      return client;
    };
    const where = async (client: Client) => {
      const { result } = await outcome(client, 'where', {});
      return (result?.content as { text: string }[])[0]!.text;
    };
    const direct = await rooted(url, 'auto');
    const proxied = await rooted(await served.url, 'legacy');
    try {
      // Directly, a 2026-07-28 client: the upstream serves a 2025-11-25 client without sessions,
      // which it cannot ask.
      expect(await where(direct)).to.equal('file:///work/client-root');
      // The proxy asks its client for its roots once it is initialized, and tells the upstream:
      // looked at until the upstream has them (or the ceiling).
      let seen = await where(proxied);
      const deadline = Date.now() + scaled(10_000);
      while (seen !== 'file:///work/client-root' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await where(proxied);
      }
      // Before, the proxy's working directory.
      expect(seen).to.equal('file:///work/client-root');
    } finally {
      await direct.close();
      await proxied.close();
      served.child.kill('SIGTERM');
      await served.done;
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
