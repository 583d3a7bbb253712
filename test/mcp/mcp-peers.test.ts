import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { expect } from 'chai';
import { z } from 'zod';
import { connectMcp, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import { annotationsOf, wrap, type Tool } from '../../index.js';
import { runTool } from '../support/run.js';
import { scaled } from '../support/time.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * A peer built with the SDK's McpServer, shaped like the reference servers: read-only tools state
 * `readOnlyHint` alone (as the filesystem server does), structured results carry their text too.
 */
function sdkPeer(): McpServer {
  const server = new McpServer({ name: 'peer', version: '1.0.0' });
  const weather = { temperature: 36, conditions: 'drizzle' };
  server.registerTool(
    'weather',
    {
      title: 'Weather',
      description: 'The weather, structured.',
      inputSchema: { city: z.string() },
      outputSchema: { temperature: z.number(), conditions: z.string() },
      annotations: { readOnlyHint: true },
      _meta: { 'example.com/ui': 'card' },
    },
    () => ({
      content: [{ type: 'text', text: JSON.stringify(weather) }],
      structuredContent: weather,
      _meta: { 'example.com/cache': 'hit' },
    }),
  );
  server.registerTool(
    'bare_structure',
    { description: 'Structure and nothing else.', outputSchema: { n: z.number() } },
    () => ({ content: [], structuredContent: { n: 7 } }),
  );
  server.registerTool(
    'picture',
    {
      description: 'An image with its structure.',
      annotations: { readOnlyHint: true, destructiveHint: true },
    },
    () => ({
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
      structuredContent: { width: 1, height: 1 },
    }),
  );
  server.registerTool(
    'write_file',
    { description: 'Writes.', annotations: { openWorldHint: false } },
    () => ({ content: [{ type: 'text', text: 'written' }] }),
  );
  server.registerTool('broken', { description: 'Fails.' }, () => ({
    content: [{ type: 'text', text: 'no such city' }],
    isError: true,
    _meta: { 'example.com/why': 'lookup' },
  }));
  server.registerTool('resource_text', { description: 'An embedded text resource.' }, () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'test://notes', mimeType: 'text/plain', text: 'notes' },
      },
    ],
  }));
  return server;
}

async function linked(server: { connect(t: InMemoryTransport): Promise<void> }) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return clientSide;
}

async function plainClient(server: { connect(t: InMemoryTransport): Promise<void> }) {
  const client = new Client({ name: 'plain', version: '1.0.0' });
  await client.connect(await linked(server));
  return client;
}

function find(remote: McpRemote, name: string): Tool {
  const found = remote.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('MCP client and proxy against an SDK-built peer (McpServer in memory)', function () {
  this.timeout(scaled(10_000));
  let remote: McpRemote;
  const opened: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    remote = await connectMcp(await linked(sdkPeer()));
    opened.push(remote);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  it('gives the model the content the server sent, once, and keeps the structure in details', async () => {
    const { events } = await runTool(find(remote, 'weather'), { city: 'Chicago' });
    const final = events.at(-1)!.result;
    expect(final.output).to.equal('{"temperature":36,"conditions":"drizzle"}');
    expect(final.details).to.deep.include({
      structuredContent: { temperature: 36, conditions: 'drizzle' },
    });
  });

  it('adds nothing to an image that comes with structure', async () => {
    const { events } = await runTool(find(remote, 'picture'), {});
    expect(events.at(-1)!.result.output).to.deep.equal([
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
    ]);
  });

  it('falls back to the JSON text of structuredContent only when the content carries nothing', async () => {
    const { events } = await runTool(find(remote, 'bare_structure'), {});
    expect(events.at(-1)!.result.output).to.equal('{"n":7}');
  });

  it('reports the hints the server stated, with defaults only where they mean something', () => {
    // Read-only: destructive and idempotent mean nothing, so only what the server said is there.
    expect(annotationsOf(find(remote, 'weather'))).to.deep.equal({
      title: 'Weather',
      readOnlyHint: true,
      openWorldHint: true,
    });
    expect(annotationsOf(find(remote, 'picture'))).to.deep.equal({
      readOnlyHint: true,
      destructiveHint: true,
      openWorldHint: true,
    });
    // Not read-only: MCP's defaults apply to what the server left out.
    expect(annotationsOf(find(remote, 'write_file'))).to.deep.equal({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it('a proxy hop changes nothing a client sees: tools/list and tools/call equal the direct ones', async () => {
    const direct = await plainClient(sdkPeer());
    const proxy = await plainClient(
      createMcpServer({ name: 'proxy', version: '1.0.0' }, remote.tools),
    );
    opened.push(direct, proxy);
    const listed = (await direct.listTools()).tools;
    expect(listed.find((t) => t.name === 'weather')).to.have.property('outputSchema');
    expect((await proxy.listTools()).tools).to.deep.equal(listed);
    const calls = [
      { name: 'weather', arguments: { city: 'Chicago' } },
      { name: 'weather', arguments: { city: 5 } },
      { name: 'bare_structure', arguments: {} },
      { name: 'picture', arguments: {} },
      { name: 'broken', arguments: {} },
      { name: 'resource_text', arguments: {} },
    ];
    for (const call of calls) {
      const want = await direct.callTool(call);
      expect(await proxy.callTool(call), call.name).to.deep.equal(want);
    }
  });

  it('a wrapped remote tool is still served as the proxy it stands for', async () => {
    const direct = await plainClient(sdkPeer());
    const seen: string[] = [];
    // Middleware: logs each call, changes nothing else.
    const logged = remote.tools.map((t) =>
      wrap(t, {
        execute: (call, context) => {
          seen.push(call.args);
          return t.execute(call, context);
        },
      }),
    );
    const proxy = await plainClient(createMcpServer({ name: 'proxy', version: '1.0.0' }, logged));
    opened.push(direct, proxy);
    // Listed as the server listed it: title, outputSchema and _meta kept.
    expect((await proxy.listTools()).tools).to.deep.equal((await direct.listTools()).tools);
    // Arguments the server refuses reach it unchecked, and its answer comes back as it sent it.
    for (const call of [
      { name: 'weather', arguments: { city: 'Chicago' } },
      { name: 'weather', arguments: { city: 5 } },
      { name: 'broken', arguments: {} },
    ]) {
      const want = await direct.callTool(call);
      expect(await proxy.callTool(call), call.name).to.deep.equal(want);
    }
    expect(seen).to.deep.equal(['{"city":"Chicago"}', '{"city":5}', '{}']);
  });

  it('an unknown tool fails with the protocol prefix once', async () => {
    const client = await plainClient(createMcpServer({ name: 'local', version: '1.0.0' }, []));
    opened.push(client);
    let failure: unknown;
    await client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => (failure = e));
    expect((failure as { code: number }).code).to.equal(-32602);
    expect((failure as Error).message).to.equal('MCP error -32602: unknown tool "nope"');
  });
});
