import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp, McpCallError, type McpRemote } from '../../../adapters/mcp-client/index.js';
import { CallContext, type ToolEvent } from '../../../index.js';
import { scaled } from '../../support/time.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type Send = (message: object) => void;

/** What the hostile server does when one of its tools is called. */
const behaviours: Record<string, (id: number, token: unknown, send: Send) => void> = {
  quick: (id, _token, send) => send({ id, result: { content: [{ type: 'text', text: 'ok' }] } }),
  unknown_type: (id, _token, send) =>
    send({
      id,
      result: {
        content: [
          { type: 'video', url: 'https://example.invalid/v.mp4' },
          { type: 'text', text: 'after the video' },
        ],
      },
    }),
  null_result: (id, _token, send) => send({ id, result: null }),
  array_result: (id, _token, send) => send({ id, result: [] }),
  no_result: (id, _token, send) => send({ id }),
  error_malformed: (id, _token, send) => send({ id, error: 'it broke' }),
  stray_member: (id, _token, send) => send({ id, result: { content: [] }, extra: 1 }),
  bad_meta: (id, _token, send) => send({ id, result: { content: [], _meta: 5 } }),
  missing_text: (id, _token, send) => send({ id, result: { content: [{ type: 'text' }] } }),
  error_not_boolean: (id, _token, send) =>
    send({ id, result: { content: [{ type: 'text', text: 'x' }], isError: 'yes' } }),
  structured_not_object: (id, _token, send) =>
    send({ id, result: { content: [], structuredContent: 'not an object' } }),
  deep_structured: (id, _token, send) => {
    let nested: unknown = 1;
    for (let i = 0; i < 20_000; i++) nested = [nested];
    send({
      id,
      // No content: the structure itself is what the model would read.
      result: { content: [], structuredContent: { nested } },
    });
  },
  huge_image: (id, _token, send) =>
    send({
      id,
      result: { content: [{ type: 'image', mimeType: 'image/png', data: 'A'.repeat(8 << 20) }] },
    }),
  stray_progress: (id, token, send) => {
    for (const progressToken of ['nobody', 12345, -1, `${String(token)}x`])
      send({ method: 'notifications/progress', params: { progressToken, progress: 1 } });
    send({ method: 'notifications/progress', params: { progressToken: token, progress: 7 } });
    send({ id: 999_999, result: { content: [] } }); // an answer to no request
    send({ id, result: { content: [{ type: 'text', text: 'ok' }] } });
  },
  asks_the_client: (id, _token, send) => {
    send({ id: 'srv-1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
    send({ id: 'srv-2', method: 'roots/list', params: {} });
    send({ id, result: { content: [{ type: 'text', text: 'ok' }] } });
  },
  deep_garbage: (id, _token, send) => {
    let nested: unknown = 1;
    for (let i = 0; i < 20_000; i++) nested = [nested];
    send({ method: 42, params: { nested } }); // no message at all, and too deep to print
    send({ id, result: { content: [{ type: 'text', text: 'ok' }] } });
  },
  flood: (id, _token, send) => {
    for (let i = 0; i < 5_000; i++) send({ method: 'notifications/tools/list_changed' });
    send({ id, result: { content: [{ type: 'text', text: 'flooded' }] } });
  },
};

interface Peer {
  remote: McpRemote;
  lists: () => number;
  clientReplies: JSONRPCMessage[];
  errors: Error[];
}

/** A server written by hand over an in-memory transport, free to break the protocol. */
async function hostilePeer(): Promise<Peer> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let lists = 0;
  const clientReplies: JSONRPCMessage[] = [];
  const send: Send = (message) =>
    void serverSide.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  const tools = Object.keys(behaviours).map((name) => ({
    name,
    inputSchema: { type: 'object', properties: {} },
  }));
  serverSide.onmessage = (message) => {
    const m = message as { id?: number; method?: string; params?: Record<string, unknown> };
    if (m.method === undefined) return void clientReplies.push(message);
    if (m.method === 'initialize')
      send({
        id: m.id,
        result: {
          protocolVersion: (m.params as { protocolVersion: string }).protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'hostile', version: '0' },
        },
      });
    else if (m.method === 'tools/list') {
      lists++;
      send({ id: m.id, result: { tools } });
    } else if (m.method === 'tools/call') {
      const params = m.params as { name: string; _meta?: { progressToken?: unknown } };
      behaviours[params.name]!(m.id!, params._meta?.progressToken, send);
    } else if (m.id !== undefined)
      // Hostile in its answers to calls, not in its handshake: it knows no other method (the
      // client's server/discover included), as JSON-RPC says.
      send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  };
  await serverSide.start();
  const errors: Error[] = [];
  const remote = await connectMcp(clientSide, { onerror: (e) => errors.push(e) });
  return { remote, lists: () => lists, clientReplies, errors };
}

async function run(
  remote: McpRemote,
  name: string,
): Promise<{ events: ToolEvent[]; error?: Error }> {
  const found = remote.tools.find((t) => t.name === name)!;
  const call = { id: name, args: '' };
  try {
    return {
      events: await lastValueFrom(found.execute(call, new CallContext(call)).pipe(toArray())),
    };
  } catch (error) {
    return { events: [], error: error as Error };
  }
}

describe('security: a hostile MCP server', function () {
  this.timeout(scaled(10_000));
  let peer: Peer;
  beforeEach(async () => {
    peer = await hostilePeer();
  });
  afterEach(() => peer.remote.close());

  const malformed: [string, string][] = [
    ['null_result', 'MCP error -32603: invalid response: the result is null'],
    ['array_result', 'MCP error -32603: invalid response: the result is an array'],
    ['no_result', 'MCP error -32603: invalid response: neither a result nor an error'],
    ['error_malformed', 'MCP error -32603: invalid response: not a JSON-RPC 2.0 response'],
    ['stray_member', 'MCP error -32603: invalid response: not a JSON-RPC 2.0 response'],
    ['bad_meta', 'MCP error -32603: invalid response: not a JSON-RPC 2.0 response'],
    ['missing_text', 'invalid result: content.0: Invalid input'],
    [
      'error_not_boolean',
      'invalid result: isError: Invalid input: expected boolean, received string',
    ],
    [
      'structured_not_object',
      'invalid result: structuredContent: Invalid input: expected record, received string',
    ],
    ['deep_structured', 'invalid result: Maximum call stack size exceeded'],
    ['unknown_type', 'invalid result: content.0: Invalid input'],
  ];
  for (const [name, reason] of malformed)
    it(`fails only the call answered with a malformed result (${name}), at once, and keeps serving`, async () => {
      const started = Date.now();
      const { events, error } = await run(peer.remote, name);
      expect(Date.now() - started, 'ms until the call failed').to.be.below(1_000);
      expect(events).to.deep.equal([]);
      expect(error).to.be.instanceOf(McpCallError);
      expect(error!.message).to.equal(`mcp: call "${name}": ${reason}`);
      expect((await run(peer.remote, 'quick')).events.at(-1)?.result.output).to.equal('ok');
      expect(peer.remote.closed).to.equal(false);
    });

  it('delivers a large result intact', async () => {
    const { events, error } = await run(peer.remote, 'huge_image');
    expect(error).to.equal(undefined);
    const [part] = events.at(-1)!.result.output as { type: string; image_url: string }[];
    expect(part!.image_url).to.equal(`data:image/png;base64,${'A'.repeat(8 << 20)}`);
  });

  it('ignores progress for tokens it did not give and answers to no request, reporting them to onerror', async () => {
    const { events, error } = await run(peer.remote, 'stray_progress');
    expect(error).to.equal(undefined);
    expect(events.map((e) => [e.final, e.result.output])).to.deep.equal([
      [false, ''],
      [true, 'ok'],
    ]);
    expect(events[0]!.result.details).to.deep.equal({ progress: 7 });
    expect(peer.errors.map((e) => e.message.replace(/:.*/, ''))).to.deep.equal([
      ...Array(4).fill('Received a progress notification for an unknown token'),
      'Received a response for an unknown message ID',
    ]);
  });

  it('answers requests from the server that it does not serve with Method not found, and goes on', async () => {
    const { events } = await run(peer.remote, 'asks_the_client');
    expect(events.at(-1)?.result.output).to.equal('ok');
    expect(await peer.remote.refresh()).to.have.length(Object.keys(behaviours).length);
    expect(peer.clientReplies).to.deep.equal([
      { jsonrpc: '2.0', id: 'srv-1', error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 'srv-2', error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  it('reports a message it cannot even print to onerror, and goes on', async () => {
    const { events } = await run(peer.remote, 'deep_garbage');
    expect(events.at(-1)?.result.output).to.equal('ok');
    expect(peer.errors.map((e) => e.message)).to.deep.equal(['Maximum call stack size exceeded']);
  });

  it('coalesces a flood of list_changed notifications into a handful of refreshes, memory flat', async () => {
    const heap = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    expect(peer.lists()).to.equal(1);
    const first = await run(peer.remote, 'flood');
    expect(first.events.at(-1)?.result.output).to.equal('flooded');
    await peer.remote.await();
    const listsForOneFlood = peer.lists() - 1;
    expect(listsForOneFlood, 'tools/list requests for 5000 notifications').to.be.within(1, 3);
    const before = heap();
    for (let i = 0; i < 4; i++) {
      await run(peer.remote, 'flood');
      await peer.remote.await();
    }
    const grown = heap() - before;
    expect(peer.lists() - 1, 'for five floods').to.be.at.most(5 * listsForOneFlood);
    expect(grown, 'bytes the heap grew over four more floods').to.be.below(1 << 20);
  });
});
