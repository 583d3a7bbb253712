/**
 * A proxy (`connectMcp` to an upstream, its tools served with `createMcpServer` and `serveHttp`)
 * offers an upstream's URL question only to a client that declared URL questions; a client of
 * forms only refuses it as the SDK's clients do (`-32602 Client does not support URL-mode
 * elicitation requests`), and the upstream gets that refusal through the proxy too. Clients of
 * both eras.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { connectMcp, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { overHttp } from '../support/sdk-peers.js';
import { scaled } from '../support/time.js';

/**
 * An upstream whose `visit` asks its client to open a page, whatever the client declared (as a
 * server that does not check), and answers with what came back: the answer, or the error.
 */
function visitingUpstream(): Server {
  const server = new Server(
    { name: 'visiting', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'visit', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    const params = {
      mode: 'url',
      message: 'Sign in, please.',
      url: 'https://example.com/sign-in',
      elicitationId: 'e1',
    };
    const text = await extra
      .sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema)
      .then(
        (answer) => `answered ${answer.action}`,
        (err: { code?: number; message: string }) => `refused ${err.code}: ${err.message}`,
      );
    return { content: [{ type: 'text', text }] };
  });
  return server;
}

type Modes = { form: Record<string, never>; url?: Record<string, never> };

/** What `visit` says when a client declaring `modes` calls it at `url`, and the questions it saw. */
async function visitAs(
  url: URL,
  modes: Modes,
  era: 'legacy' | 'modern' | 'v1',
): Promise<{ text: string; asked: string[] }> {
  const asked: string[] = [];
  const answer = (request: { params: { mode?: string } }) => {
    asked.push(request.params.mode ?? 'form');
    return { action: 'accept' as const };
  };
  let call: () => Promise<unknown>;
  let close: () => Promise<void>;
  if (era === 'v1') {
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const client = new ClientV1(
      { name: 'v1', version: '1' },
      { capabilities: { elicitation: modes } },
    );
    client.setRequestHandler(ElicitRequestSchema, answer);
    await client.connect(new HttpV1(url));
    call = () => client.callTool({ name: 'visit', arguments: {} });
    close = () => client.close();
  } else {
    const client = new ModernClient(
      { name: era, version: '1' },
      {
        versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' },
        capabilities: { elicitation: modes },
      },
    );
    client.setRequestHandler('elicitation/create', answer);
    await client.connect(new ModernHttpTransport(url));
    if (era === 'modern') expect(client.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
    call = () => client.callTool({ name: 'visit', arguments: {} });
    close = () => client.close();
  }
  try {
    const result = (await call()) as { content: { text: string }[] };
    return { text: result.content[0]!.text, asked };
  } finally {
    await close();
  }
}

/** What `visit` says called directly (one server per session) by a 2025-11-25 client. */
async function directly(modes: Modes): Promise<{ text: string; asked: string[] }> {
  const direct = await overHttp(visitingUpstream());
  try {
    return await visitAs(new URL(direct.url), modes, 'v1');
  } finally {
    await direct.close();
  }
}

/**
 * `seen` with the refusal's message as its client wrote it: the SDK's v1 client puts
 * `MCP error -32602: ` before its message on the wire, its v2 client does not.
 */
function unprefixed(seen: { text: string; asked: string[] }): { text: string; asked: string[] } {
  return { ...seen, text: seen.text.replace(/(MCP error -32602: )+/, '') };
}

describe('the proxy changes nothing: URL questions', function () {
  this.timeout(scaled(20_000));
  let remote: McpRemote;
  let proxy: McpHttpServer;

  before(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await visitingUpstream().connect(serverSide);
    remote = await connectMcp(clientSide, {
      versionNegotiation: { mode: 'legacy' },
      urlElicitation: true,
    });
    proxy = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'proxy', version: '1' }, remote.tools),
    });
  });
  after(async () => {
    await proxy?.close();
    await remote?.close();
  });

  it('a client of forms only refuses it as directly, in both eras: the upstream gets -32602', async () => {
    const forms: Modes = { form: {} };
    const theirs = unprefixed(await directly(forms));
    expect(theirs).to.deep.equal({
      text: 'refused -32602: Client does not support URL-mode elicitation requests',
      asked: [],
    });
    // Before, the proxy declined it for the client: the upstream got `decline`.
    for (const era of ['v1', 'legacy', 'modern'] as const)
      expect(unprefixed(await visitAs(new URL(proxy.url), forms, era)), era).to.deep.equal(theirs);
  });

  it('a client that declared URL questions is asked, in both eras', async () => {
    const both: Modes = { form: {}, url: {} };
    const theirs = await directly(both);
    expect(theirs).to.deep.equal({ text: 'answered accept', asked: ['url'] });
    for (const era of ['v1', 'legacy', 'modern'] as const)
      expect(await visitAs(new URL(proxy.url), both, era), era).to.deep.equal(theirs);
  });
});
