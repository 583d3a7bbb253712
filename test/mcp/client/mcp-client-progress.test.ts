import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { connectMcp, type McpRemote } from '../../../adapters/mcp-client/index.js';
import { CallContext, type ToolEvent } from '../../../index.js';
import { runTool } from '../../support/run.js';
import { only } from '../../support/sdk-peers.js';
import { scaled } from '../../support/time.js';

/**
 * A server whose `burst` call sends `count` progress notifications and its answer in one go, and
 * whose `wait` call answers when released. Every message the client sends is kept in `sent`.
 */
async function serve(): Promise<{
  transport: InMemoryTransport;
  sent: JSONRPCMessage[];
  release(): void;
}> {
  const server = new Server(
    { name: 'progress', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  const schema = { type: 'object' as const };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'burst', inputSchema: schema, annotations: { readOnlyHint: true } },
      { name: 'wait', inputSchema: schema, annotations: { readOnlyHint: true } },
      { name: 'tick', inputSchema: schema, annotations: { readOnlyHint: true } },
    ],
  }));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name === 'wait') {
      await released;
      return { content: [{ type: 'text', text: 'waited' }] };
    }
    if (request.params.name === 'tick') {
      const token = request.params._meta!.progressToken!;
      for (let i = 1; i <= 12; i++) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i },
        });
      }
      return { content: [{ type: 'text', text: 'ticked' }] };
    }
    const count = (request.params.arguments as { count: number }).count;
    const token = request.params._meta!.progressToken!;
    for (let i = 1; i <= count; i++)
      void extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: i, total: count },
      });
    return { content: [{ type: 'text', text: `sent ${count}` }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const sent: JSONRPCMessage[] = [];
  const onmessage = serverSide.onmessage!;
  serverSide.onmessage = (message, extra) => {
    sent.push(message);
    onmessage(message, extra);
  };
  return { transport: clientSide, sent, release };
}

describe('connectMcp: progress and cancellation of each call', function () {
  this.timeout(scaled(10_000));
  const opened: McpRemote[] = [];
  afterEach(() => Promise.all(opened.splice(0).map((r) => r.close())));

  it('progress sent with the answer in one go all arrives, in order, before the result, and nothing goes to onerror', async () => {
    const { transport } = await serve();
    const errors: Error[] = [];
    const remote = await connectMcp(transport, { onerror: (e) => errors.push(e) });
    opened.push(remote);
    const runs = await Promise.all([
      runTool(only(remote, 'burst'), { count: 5 }),
      runTool(only(remote, 'burst'), { count: 3 }),
    ]);
    for (const [i, count] of [5, 3].entries()) {
      const { events, error } = runs[i]!;
      expect(error).to.equal(undefined);
      expect(
        events.map((e) =>
          e.final ? 'final' : (e.result.details as { progress: number }).progress,
        ),
      ).to.deep.equal([...Array.from({ length: count }, (_, k) => k + 1), 'final']);
      expect(events.at(-1)!.result.output).to.equal(`sent ${count}`);
    }
    expect(errors).to.deep.equal([]);
  });

  it('unsubscribing from one call cancels its request alone; the other call gets its answer', async () => {
    const { transport, sent, release } = await serve();
    const remote = await connectMcp(transport);
    opened.push(remote);
    const wait = only(remote, 'wait');
    const first = { id: 'a', args: '{}' };
    const cancelled: ToolEvent[] = [];
    const subscription = wait
      .execute(first, new CallContext(first))
      .subscribe({ next: (e) => cancelled.push(e) });
    const second = runTool(wait, {});
    subscription.unsubscribe();
    release();
    const { events, error } = await second;
    expect(error).to.equal(undefined);
    expect(events.at(-1)!.result.output).to.equal('waited');
    expect(cancelled).to.deep.equal([]);
    const calls = sent.filter((m) => 'method' in m && m.method === 'tools/call') as {
      id: number;
    }[];
    const cancels = sent
      .filter((m) => 'method' in m && m.method === 'notifications/cancelled')
      .map((m) => (m as unknown as { params: { requestId: number } }).params.requestId);
    // The first call's request was either never sent (cancelled before the SDK sent it) or
    // cancelled by its id; the second's was sent and not cancelled.
    expect(calls.length).to.be.within(1, 2);
    const answered = calls.at(-1)!.id;
    expect(cancels).to.deep.equal(calls.filter((c) => c.id !== answered).map((c) => c.id));
  });

  it('each call times out `timeout` ms after its own last word: a silent call started later fails later', async () => {
    const { transport, release } = await serve();
    const remote = await connectMcp(transport, { timeout: 400 });
    opened.push(remote);
    const started = performance.now();
    const failedAt = (run: Promise<{ error?: unknown }>) =>
      run.then(({ error }) => ({
        error: error as Error | undefined,
        at: performance.now() - started,
      }));
    const first = failedAt(runTool(only(remote, 'wait'), {}));
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = failedAt(runTool(only(remote, 'wait'), {}));
    const [a, b] = await Promise.all([first, second]);
    release();
    expect(a.error?.message).to.match(/^mcp: call "wait": .*timed out/i);
    expect(b.error?.message).to.match(/^mcp: call "wait": .*timed out/i);
    // Timers never fire early: each call had its full timeout from its own start.
    expect(a.at).to.be.at.least(400 - 2);
    expect(b.at).to.be.at.least(80 + 400 - 2);
  });

  it('a call with progress runs past the timeout while a silent call of the same connection times out', async () => {
    const { transport, release } = await serve();
    const remote = await connectMcp(transport, { timeout: 400 });
    opened.push(remote);
    const [silent, ticking] = await Promise.all([
      runTool(only(remote, 'wait'), {}),
      runTool(only(remote, 'tick'), {}),
    ]);
    release();
    expect((silent.error as Error | undefined)?.message).to.match(/timed out/i);
    expect(ticking.error).to.equal(undefined);
    expect(ticking.events.at(-1)!.result.output).to.equal('ticked');
  });
});
