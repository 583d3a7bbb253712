/**
 * The proxy field by field against the reference server: the same tools and calls made directly
 * to server-everything and through `createMcpServer(remote.tools$)` over `connectMcp`, by the
 * SDK's client; the listings, the results and the progress are the same.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connectMcp, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import { scaled } from '../support/time.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const spawnEverything = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: [everything, 'stdio'],
    stderr: 'pipe',
  });

/** The calls compared: every tool whose answer does not depend on the moment or the machine. */
const CALLS: [string, Record<string, unknown>][] = [
  ['echo', { message: 'hello' }],
  ['get-sum', { a: 2, b: 3.5 }],
  ['get-tiny-image', {}],
  ['get-structured-content', { location: 'Chicago' }],
  ['get-annotated-message', { messageType: 'error', includeImage: true }],
  ['get-resource-links', { count: 2 }],
  ['get-resource-reference', { resourceType: 'Text', resourceId: 2 }],
  ['trigger-long-running-operation', { duration: 0.2, steps: 2 }],
  ['echo', { wrong: 1 }],
];

/**
 * A result with the time of day a text carries made one ("created at 1:48:53 PM", an ISO stamp):
 * get-resource-reference's text resource says when it was made, and two calls at once may
 * straddle a second.
 */
function withoutClock(result: unknown): unknown {
  return JSON.parse(
    JSON.stringify(result)
      .replace(/\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?/g, '<time>')
      .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, '<time>'),
  );
}

describe('the proxy changes nothing: server-everything, directly and through it', function () {
  this.timeout(scaled(30_000));
  let direct: Client;
  let remote: McpRemote;
  let proxied: Client;

  before(async () => {
    // Declaring what connectMcp declares (elicitation), so the server offers both the same tools.
    direct = new Client({ name: 'direct', version: '1' }, { capabilities: { elicitation: {} } });
    await direct.connect(spawnEverything());
    remote = await connectMcp(spawnEverything(), { versionNegotiation: { mode: 'legacy' } });
    await remote.await();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ name: 'proxy', version: '1' }, remote.tools$).connect(serverSide);
    proxied = new Client({ name: 'proxied', version: '1' });
    await proxied.connect(clientSide);
  });
  after(async () => {
    await direct?.close();
    await proxied?.close();
    await remote?.close();
  });

  it('lists every tool as the server lists it', async () => {
    const theirs = (await direct.listTools()).tools;
    const ours = (await proxied.listTools()).tools;
    expect(ours.map((t) => t.name)).to.deep.equal(theirs.map((t) => t.name));
    for (const [i, tool] of theirs.entries()) {
      // One field differs, on purpose: an `execution` that offers tasks is left out, since the
      // proxy runs no tasks (createMcpServer); everything else is as the server listed it.
      const { execution, ...rest } = tool;
      const tasks = execution?.taskSupport !== undefined && execution.taskSupport !== 'forbidden';
      expect(ours[i], tool.name).to.deep.equal(tasks ? rest : tool);
    }
  });

  for (const [name, args] of CALLS)
    it(`${name} ${JSON.stringify(args)}: the same result and progress`, async () => {
      const call = async (client: Client) => {
        const progress: unknown[] = [];
        const result = await client.callTool({ name, arguments: args }, undefined, {
          onprogress: (p) => void progress.push({ progress: p.progress, total: p.total }),
        });
        return { result, progress };
      };
      const [theirs, ours] = await Promise.all([call(direct), call(proxied)]);
      expect(withoutClock(ours.result)).to.deep.equal(withoutClock(theirs.result));
      // The SDK's client, straight to the server, may handle the answer before the progress sent
      // just ahead of it and drop that one (the proxy's connectMcp keeps their order): what it
      // saw is where the proxied series starts, and the proxied one loses nothing.
      expect(ours.progress.slice(0, theirs.progress.length)).to.deep.equal(theirs.progress);
      if (name === 'trigger-long-running-operation')
        expect(ours.progress).to.deep.equal([
          { progress: 1, total: 2 },
          { progress: 2, total: 2 },
        ]);
      else expect(ours.progress).to.deep.equal(theirs.progress);
    });
});
