/**
 * `RootsRelay`: the roots a proxy offers its upstream are those of its latest client that declared
 * roots and is still connected, else its own folders; a client that declares none is not asked.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createMcpServer, RootsRelay } from '../../../adapters/mcp-server/index.js';
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
