/**
 * `RootsRelay`: the roots a proxy offers its upstream are those of its latest client that declared
 * roots and is still connected, else its own folders; a client that declares none is not asked.
 * A 2026-07-28 client that declared roots is asked for them during its call, when the upstream
 * asks for them then (both upstream eras).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import { connectMcp, httpTransport, type McpRemote } from '../../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  RootsRelay,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { rawTool } from '../../../index.js';
import { until } from '../../support/until.js';
import { scaled } from '../../support/time.js';

const FALLBACK = [{ uri: 'file:///proxy-folder', name: 'proxy' }];

const plain = rawTool({
  name: 'plain',
  description: 'Answers at once.',
  parameters: { type: 'object', properties: {} },
  execute: () => ({ output: 'plain' }),
});

/** A client of a server made with `relay`, declaring `roots` (none: no roots capability). */
async function connected(
  relay: RootsRelay,
  roots?: string[],
): Promise<{ close(): Promise<void>; asked: () => number }> {
  const client = new Client(
    { name: 'client', version: '1' },
    { capabilities: roots === undefined ? {} : { roots: {} } },
  );
  let asked = 0;
  if (roots !== undefined)
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked++;
      return { roots: roots.map((uri) => ({ uri })) };
    });
  const server = createMcpServer({ name: 'proxy', version: '1' }, [plain], { roots: relay });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { close: () => client.close(), asked: () => asked };
}

describe('RootsRelay: the roots a proxy offers its upstream', function () {
  this.timeout(scaled(10_000));

  it("offers the latest connected client's roots, the one before's when it goes, and its own with none", async () => {
    const relay = new RootsRelay(FALLBACK);
    const seen: string[][] = [];
    const subscription = relay.roots$.subscribe((roots) => seen.push(roots.map((r) => r.uri)));
    const uris = () => seen.at(-1);
    expect(uris()).to.deep.equal(['file:///proxy-folder']);
    const first = await connected(relay, ['file:///first']);
    await until(() => uris()?.[0] === 'file:///first', "the first client's roots");
    const second = await connected(relay, ['file:///second/a', 'file:///second/b']);
    await until(() => uris()?.[0] === 'file:///second/a', "the second client's roots");
    expect(uris()).to.deep.equal(['file:///second/a', 'file:///second/b']);
    await second.close();
    await until(() => uris()?.[0] === 'file:///first', "the first client's roots again");
    await first.close();
    await until(() => uris()?.[0] === 'file:///proxy-folder', 'the fallback');
    // Each change once: equal lists in a row are one.
    expect(seen).to.deep.equal([
      ['file:///proxy-folder'],
      ['file:///first'],
      ['file:///second/a', 'file:///second/b'],
      ['file:///first'],
      ['file:///proxy-folder'],
    ]);
    subscription.unsubscribe();
  });

  it('asks no client that did not declare roots, and keeps offering its own', async () => {
    const relay = new RootsRelay(FALLBACK);
    let latest: readonly { uri: string }[] = [];
    const subscription = relay.roots$.subscribe((roots) => (latest = roots));
    const client = await connected(relay);
    // A client that declared roots, connected after it, is asked: by then the first was not.
    const declaring = await connected(relay, ['file:///declared']);
    await until(() => latest[0]?.uri === 'file:///declared', "the declaring client's roots");
    await declaring.close();
    await until(() => latest[0]?.uri === 'file:///proxy-folder', 'the fallback');
    expect(declaring.asked()).to.equal(1);
    await client.close();
    subscription.unsubscribe();
  });
});

/** What the upstream's `where` answers: the URIs of the roots it got, one space between. */
const WHERE = {
  name: 'where',
  description: 'Says where it may work: asks for the roots during the call.',
  inputSchema: { type: 'object' as const },
  annotations: { readOnlyHint: true },
};

/** A 2026-07-28 upstream (the SDK's v2 line): `where` asks for roots in an input request. */
function modernUpstream(): McpServer {
  const mcp = new McpServer({ name: 'modern-upstream', version: '1' });
  mcp.registerTool('where', { description: WHERE.description }, (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.roots as { roots?: { uri: string }[] } | undefined;
    if (answer === undefined)
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return { content: [{ type: 'text', text: (answer.roots ?? []).map((r) => r.uri).join(' ') }] };
  });
  return mcp;
}

/** A 2025-11-25 upstream (the SDK's v1 line): `where` sends `roots/list` during the call. */
function legacyUpstream(): LegacyServer {
  const server = new LegacyServer(
    { name: 'legacy-upstream', version: '1' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [WHERE] }));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    const { roots } = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
    return { content: [{ type: 'text', text: roots.map((r) => r.uri).join(' ') }] };
  });
  return server;
}

/** The proxy: `connectMcp` to an upstream, offered the relay's roots, re-served over HTTP. */
interface Proxy {
  readonly http: McpHttpServer;
  close(): Promise<void>;
}

async function proxyOf(era: 'legacy' | 'modern'): Promise<Proxy> {
  const relay = new RootsRelay(FALLBACK);
  let upstream: HttpServer | undefined;
  let remote: McpRemote;
  if (era === 'modern') {
    const handler = toNodeHandler(createMcpHandler(modernUpstream));
    upstream = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    remote = await connectMcp(httpTransport(`http://127.0.0.1:${port}/mcp`), {
      roots: relay.roots$,
    });
  } else {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await legacyUpstream().connect(serverSide);
    remote = await connectMcp(clientSide, { roots: relay.roots$ });
  }
  expect(remote.protocolVersion).to.equal(era === 'modern' ? '2026-07-28' : '2025-11-25');
  const http = await serveHttp({
    port: 0,
    factory: () => createMcpServer({ name: 'proxy', version: '1' }, remote.tools, { roots: relay }),
  });
  return {
    http,
    close: async () => {
      await http.close();
      await remote.close();
      if (upstream !== undefined) await new Promise<void>((r) => upstream!.close(() => r()));
    },
  };
}

/**
 * A 2026-07-28 client of the proxy that calls `where`: declaring `roots` (answered with `roots`,
 * each ask counted) or not. Its answer, and how often it was asked.
 */
async function where(proxy: Proxy, roots?: string[]): Promise<{ text: string; asked: number }> {
  const client = new ModernClient(
    { name: 'modern', version: '1' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: roots === undefined ? {} : { roots: {} },
    },
  );
  let asked = 0;
  if (roots !== undefined)
    client.setRequestHandler('roots/list', () => {
      asked++;
      return { roots: roots.map((uri) => ({ uri })) };
    });
  await client.connect(new ModernHttpTransport(proxy.http.endpoint));
  try {
    expect(client.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
    const result = await client.callTool({ name: 'where', arguments: {} });
    return { text: (result.content as { text: string }[])[0]!.text, asked };
  } finally {
    await client.close();
  }
}

for (const era of ['modern', 'legacy'] as const)
  describe(`RootsRelay: a 2026-07-28 client's roots, asked during its call (${era === 'modern' ? '2026-07-28' : '2025-11-25'} upstream)`, function () {
    this.timeout(scaled(20_000));
    let proxy: Proxy;
    beforeEach(async () => {
      proxy = await proxyOf(era);
    });
    afterEach(async () => {
      await proxy.close();
    });

    it("gives the upstream the calling client's own roots, asked of it in the call", async () => {
      const seen = await where(proxy, ['file:///client/a', 'file:///client/b']);
      // Before, the proxy's own folders: this era's client was never asked.
      expect(seen).to.deep.equal({ text: 'file:///client/a file:///client/b', asked: 1 });
    });

    it('gives each client its own roots, not those of the client before', async () => {
      expect((await where(proxy, ['file:///first'])).text).to.equal('file:///first');
      expect((await where(proxy, ['file:///second'])).text).to.equal('file:///second');
    });

    it("gives the proxy's own roots for a client that declared none", async () => {
      expect((await where(proxy)).text).to.equal('file:///proxy-folder');
    });
  });
