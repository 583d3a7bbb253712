/**
 * `connectMcp` in MCP 2026-07-28 over a transport without a stream per request (the SDK's
 * in-memory pair, its server picking the era as its stdio entry does): a call is cancelled by
 * `notifications/cancelled`, carrying the client's envelope as the SDK's own cancellation does.
 */
import { expect } from 'chai';
import {
  CLIENT_CAPABILITIES_META_KEY,
  InMemoryTransport,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { connectMcp, type McpRemote } from '../../../adapters/mcp-client/index.js';
import { executeBatch } from '../../../index.js';
import { scaled } from '../../support/time.js';

const MODERN = '2026-07-28';

/** A server of the SDK's whose `wait` runs until it is cancelled. */
function waitingServer(started: () => void, aborted: () => void): () => McpServer {
  return () => {
    const mcp = new McpServer({ name: 'waits', version: '1' });
    mcp.registerTool(
      'wait',
      { description: 'Waits until cancelled.' },
      (ctx) =>
        new Promise((resolve) => {
          ctx.mcpReq.signal.addEventListener('abort', () => {
            aborted();
            resolve({ content: [] });
          });
          started();
        }),
    );
    return mcp;
  };
}

/** Connects over an in-memory pair, keeping every message the client sends. */
async function connected(
  factory: () => McpServer,
): Promise<{ remote: McpRemote; sent: JSONRPCMessage[]; close(): Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const handle = serveEras(factory, { transport: serverSide });
  const remote = await connectMcp(clientSide);
  return { remote, sent, close: async () => (await remote.close(), await handle.close()) };
}

describe('connectMcp: MCP 2026-07-28 without a stream per request', function () {
  this.timeout(scaled(10_000));

  it('unsubscribing sends notifications/cancelled with the envelope, and ends the handler', async () => {
    let started!: () => void;
    let aborted!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const ended = new Promise<void>((resolve) => (aborted = resolve));
    const { remote, sent, close } = await connected(waitingServer(started, aborted));
    try {
      expect(remote.protocolVersion).to.equal(MODERN);
      const wait = remote.tools.find((t) => t.name === 'wait')!;
      const subscription = executeBatch([
        { tool: wait, call: { id: 'w', args: '{}' } },
      ]).subscribe();
      await running;
      subscription.unsubscribe();
      await ended;
      const call = sent.find((m) => 'method' in m && m.method === 'tools/call') as {
        id: number;
        params: { _meta: Record<string, unknown> };
      };
      const notice = sent.find((m) => 'method' in m && m.method === 'notifications/cancelled') as
        { params: { requestId: unknown; _meta?: Record<string, unknown> } } | undefined;
      expect(notice?.params.requestId).to.equal(call.id);
      expect(notice?.params._meta?.[PROTOCOL_VERSION_META_KEY]).to.equal(MODERN);
      expect(notice?.params._meta?.[CLIENT_CAPABILITIES_META_KEY]).to.deep.equal(
        call.params._meta[CLIENT_CAPABILITIES_META_KEY],
      );
    } finally {
      await close();
    }
  });
});
