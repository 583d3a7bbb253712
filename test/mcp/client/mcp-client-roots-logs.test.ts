import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { BehaviorSubject } from 'rxjs';
import {
  connectMcp,
  type McpLogMessage,
  type McpRemote,
} from '../../../adapters/mcp-client/index.js';
import { CALL_TOKEN } from '../../../adapters/mcp-shared/call-token.js';
import { rootsServer } from '../../fixtures/roots-server.js';
import { runTool } from '../../support/run.js';
import { gate, only } from '../../support/sdk-peers.js';
import { scaled } from '../../support/time.js';

async function linked(server: Server): Promise<InMemoryTransport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return clientSide;
}

async function allowed(remote: McpRemote): Promise<unknown> {
  const { events } = await runTool(only(remote, 'list_allowed_directories'), {});
  return events.at(-1)?.result.output;
}

/** A server whose `work` call logs `log` messages, each after the gate before it opens. */
function loggingServer(gates: { open: Promise<void> }[]): Server {
  const server = new Server(
    { name: 'logger', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'work',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const step = (request.params.arguments as { step: number }).step;
    await gates[step]!.open;
    await server.sendLoggingMessage({ level: 'info', logger: 'w', data: `step ${step}` });
    return { content: [{ type: 'text', text: `done ${step}` }] };
  });
  return server;
}

/**
 * A server whose `work` call logs as an agenttool server does: its message carries the call's
 * token (its progress token) under `_meta`.
 */
function markingServer(gates: { open: Promise<void> }[]): Server {
  const server = loggingServer([]);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const step = (request.params.arguments as { step: number }).step;
    await gates[step]!.open;
    await extra.sendNotification({
      method: 'notifications/message',
      params: {
        level: 'info',
        logger: 'w',
        data: `step ${step}`,
        _meta: { [CALL_TOKEN]: request.params._meta?.progressToken },
      },
    });
    return { content: [{ type: 'text', text: `done ${step}` }] };
  });
  return server;
}

describe('connectMcp: roots and server log messages (SDK-built peers in memory)', function () {
  this.timeout(scaled(10_000));
  const opened: McpRemote[] = [];
  afterEach(() => Promise.all(opened.splice(0).map((r) => r.close())));

  it('a server that asks for roots gets the list given in the options', async () => {
    const remote = await connectMcp(await linked(rootsServer()), {
      roots: [{ uri: 'file:///srv/data', name: 'data' }, { uri: 'file:///tmp' }],
    });
    opened.push(remote);
    expect(await allowed(remote)).to.equal('file:///srv/data\nfile:///tmp');
  });

  it('without roots the client declares none, and such a server has no directories', async () => {
    const remote = await connectMcp(await linked(rootsServer()));
    opened.push(remote);
    expect(await allowed(remote)).to.equal('no allowed directories');
  });

  it('a function is asked each time; an Observable announces each new list and the server asks again', async () => {
    let asked = 0;
    const byFunction = await connectMcp(await linked(rootsServer()), {
      roots: () => {
        asked++;
        return Promise.resolve([{ uri: 'file:///from/function' }]);
      },
    });
    opened.push(byFunction);
    expect(await allowed(byFunction)).to.equal('file:///from/function');
    expect(asked).to.equal(1);

    const roots$ = new BehaviorSubject([{ uri: 'file:///first' }]);
    const lists: string[][] = [];
    let second!: () => void;
    const gotSecond = new Promise<void>((resolve) => (second = resolve));
    const remote = await connectMcp(
      await linked(
        rootsServer((uris) => {
          lists.push(uris);
          if (lists.length === 2) second();
        }),
      ),
      { roots: roots$ },
    );
    opened.push(remote);
    expect(await allowed(remote)).to.equal('file:///first');
    roots$.next([{ uri: 'file:///second' }]);
    await gotSecond;
    expect(lists).to.deep.equal([['file:///first'], ['file:///second']]);
    expect(await allowed(remote)).to.equal('file:///second');
  });

  it('refuses a root that is not a file:// URI, with the reason', async () => {
    let failure: unknown;
    await connectMcp(await linked(rootsServer()), { roots: [{ uri: '/srv/data' }] }).catch(
      (e: unknown) => (failure = e),
    );
    expect((failure as Error).message).to.equal(
      'mcp: connect: roots: "/srv/data" is not a file:// URI',
    );
  });

  it("a server's own log message, sent while one call runs, is not that call's: onLog alone gets it", async () => {
    // MCP does not say which request a log message belongs to: one sent with the session's
    // sendLoggingMessage (a periodic status line, say) is not shown as the running call's progress.
    const logs: McpLogMessage[] = [];
    const gates = [{ open: Promise.resolve() }];
    const remote = await connectMcp(await linked(loggingServer(gates)), {
      onLog: (m) => logs.push(m),
    });
    opened.push(remote);
    const { events } = await runTool(only(remote, 'work'), { step: 0 });
    expect(events.map((e) => [e.final, e.result.output])).to.deep.equal([[true, 'done 0']]);
    expect(logs).to.deep.equal([{ level: 'info', logger: 'w', data: 'step 0', text: 'step 0' }]);
  });

  it("a log message marked with a call's token reaches that call as progress, though two calls run", async () => {
    const logs: McpLogMessage[] = [];
    const gates = [gate(), gate()];
    const server = markingServer(gates);
    const remote = await connectMcp(await linked(server), { onLog: (m) => logs.push(m) });
    opened.push(remote);
    const first = runTool(only(remote, 'work'), { step: 0 });
    const second = runTool(only(remote, 'work'), { step: 1 });
    await server.sendLoggingMessage({ level: 'warning', data: { busy: 2 } });
    await new Promise((resolve) => setImmediate(resolve));
    gates[1]!.release();
    gates[0]!.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.events.map((e) => [e.final, e.result.output])).to.deep.equal([
      [false, 'step 0'],
      [true, 'done 0'],
    ]);
    expect(a.events[0]!.result.details).to.deep.equal({
      level: 'info',
      logger: 'w',
      data: 'step 0',
    });
    expect(b.events.map((e) => [e.final, e.result.output])).to.deep.equal([
      [false, 'step 1'],
      [true, 'done 1'],
    ]);
    expect(logs).to.deep.equal([
      { level: 'warning', data: { busy: 2 }, text: '{"busy":2}' },
      { level: 'info', logger: 'w', data: 'step 1', text: 'step 1', tool: 'work' },
      { level: 'info', logger: 'w', data: 'step 0', text: 'step 0', tool: 'work' },
    ]);
  });

  it("a token that names no running call (one ended, or made up) is no call's", async () => {
    const logs: McpLogMessage[] = [];
    const server = loggingServer([]);
    const remote = await connectMcp(await linked(server), { onLog: (m) => logs.push(m) });
    opened.push(remote);
    await server.notification({
      method: 'notifications/message',
      params: { level: 'info', data: 'stray', _meta: { [CALL_TOKEN]: 'no-such-call' } },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs).to.deep.equal([{ level: 'info', data: 'stray', text: 'stray' }]);
  });

  it('without onLog, a log message no call received is written to stderr as one line', async () => {
    const server = loggingServer([]);
    const remote = await connectMcp(await linked(server));
    opened.push(remote);
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await server.sendLoggingMessage({ level: 'error', data: 'disk\nfull' });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.stderr.write = write;
    }
    expect(written).to.deep.equal(['mcp logger: error: disk full\n']);
  });
});
