import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { join } from 'node:path';
import { lastValueFrom, toArray, type Subscription } from 'rxjs';
import {
  connectMcp,
  McpCallError,
  type McpClientOptions,
  type McpRemote,
} from '../../../adapters/mcp-client/index.js';
import { stdioTransport } from '../../../adapters/mcp-stdio/index.js';
import { CallContext, type Tool, type ToolEvent } from '../../../index.js';
import { lines } from '../../support/lines.js';
import { scaled } from '../../support/time.js';

const fixture = join(import.meta.dirname, '..', '..', 'fixtures', 'mcp-fault-server.mjs');

interface Connected {
  remote: McpRemote;
  /** Resolves when the server's stderr has printed a line starting with `prefix`. */
  stderrLine(prefix: string): Promise<string>;
}

async function connect(options: McpClientOptions = {}, maxBufferSize?: number): Promise<Connected> {
  // The transport agenttool gives (and the CLI uses): the SDK's, with malformed lines failed at once.
  const transport = stdioTransport({
    command: process.execPath,
    args: [fixture],
    stderr: 'pipe',
    ...(maxBufferSize === undefined ? {} : { maxBufferSize }),
  }) as StdioClientTransport;
  // The stream exists before the process starts: read from the first line on.
  const stderr = lines(transport.stderr!);
  const remote = await connectMcp(transport, options);
  return { remote, stderrLine: (prefix) => stderr.seen(prefix) };
}

function tool(remote: McpRemote, name: string): Tool {
  const found = remote.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

function start(remote: McpRemote, name: string) {
  const call = { id: name, args: '' };
  return tool(remote, name).execute(call, new CallContext(call));
}

async function run(
  remote: McpRemote,
  name: string,
): Promise<{ events: ToolEvent[]; error?: Error }> {
  try {
    return { events: await lastValueFrom(start(remote, name).pipe(toArray())) };
  } catch (error) {
    return { events: [], error: error as Error };
  }
}

describe('MCP client faults (a misbehaving stdio server)', function () {
  this.timeout(scaled(5_000));
  const opened: McpRemote[] = [];
  const open = async (options?: McpClientOptions, maxBufferSize?: number): Promise<Connected> => {
    const connected = await connect(options, maxBufferSize);
    opened.push(connected.remote);
    return connected;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  it('a server that exits mid-call fails the waiting call promptly and delivers the answer it sent first', async () => {
    const { remote } = await open();
    const waiting = lastValueFrom(start(remote, 'wait')).then(
      () => undefined,
      (error: Error) => error,
    );
    const { events, error } = await run(remote, 'answer_then_exit');
    expect(error).to.equal(undefined);
    expect(events.map((e) => [e.final, e.result.output])).to.deep.equal([
      [false, ''],
      [true, 'last words'],
    ]);
    const lost = await waiting;
    expect(lost).to.be.instanceOf(McpCallError);
    expect(lost!.message).to.match(/^mcp: call "wait": connection closed/);
    expect(remote.closed).to.equal(true);
    expect((await run(remote, 'quick')).error?.message).to.equal('mcp: connection closed');
  });

  it('a malformed result fails that call with an error and leaves the connection usable', async () => {
    const { remote } = await open();
    const { error } = await run(remote, 'malformed');
    expect(error).to.be.instanceOf(McpCallError);
    expect(error!.message).to.equal(
      'mcp: call "malformed": invalid result: content: Invalid input: expected array, received string',
    );
    expect((await run(remote, 'quick')).events.at(-1)?.result.output).to.equal('quick');
  });

  it('a line that is not JSON goes to onerror and the call after it still gets its answer', async () => {
    const errors: Error[] = [];
    const { remote } = await open({ onerror: (e) => errors.push(e) });
    const { events } = await run(remote, 'garbage_then_answer');
    expect(events.at(-1)?.result.output).to.equal('after garbage');
    expect(errors).to.have.length.greaterThan(0);
  });

  const malformed: [string, string][] = [
    ['null_result', 'MCP error -32603: invalid response: the result is null'],
    ['meta_not_object', 'MCP error -32603: invalid response: not a JSON-RPC 2.0 response'],
    ['broken_answer', 'MCP error -32700: invalid response: a line that is not JSON'],
    ['broken_no_id', 'MCP error -32700: invalid response: a line that is not JSON'],
  ];
  for (const [name, reason] of malformed)
    it(`a malformed response (${name}) fails its call at once, not after the timeout, and the connection goes on`, async () => {
      const { remote } = await open(); // the default timeout: 60 s
      const started = Date.now();
      const { error } = await run(remote, name);
      expect(Date.now() - started, 'ms until the call failed').to.be.below(2_000);
      expect(error).to.be.instanceOf(McpCallError);
      expect(error!.message).to.equal(`mcp: call "${name}": ${reason}`);
      expect((await run(remote, 'quick')).events.at(-1)?.result.output).to.equal('quick');
      expect(remote.closed).to.equal(false);
    });

  it("a result with a _meta object is taken as it is (MCP 2026-07-28's results carry one)", async () => {
    const { remote } = await open();
    const { events, error } = await run(remote, 'meta_result');
    expect(error).to.equal(undefined);
    expect(events.at(-1)?.result.output).to.equal('with meta');
  });

  it('a broken answer fails only the call whose id it names; with no id, every call waiting', async () => {
    const { remote } = await open();
    const waiting = () =>
      lastValueFrom(start(remote, 'wait')).then(
        () => 'answered',
        (error: Error) => error.message,
      );
    let ended = false;
    const bystander = waiting().finally(() => (ended = true));
    expect((await run(remote, 'broken_answer')).error?.message).to.match(/not JSON$/);
    await run(remote, 'quick'); // a round trip: the bystander would have failed by now
    expect(ended, 'the call waiting alongside the broken answer').to.equal(false);
    const lost = waiting();
    expect((await run(remote, 'broken_no_id')).error?.message).to.match(/not JSON$/);
    expect(await bystander).to.equal(
      'mcp: call "wait": MCP error -32700: invalid response: a line that is not JSON',
    );
    expect(await lost).to.equal(
      'mcp: call "wait": MCP error -32700: invalid response: a line that is not JSON',
    );
  });

  it('a message larger than the transport accepts fails the call promptly with the reason', async () => {
    const { remote } = await open({}, 64 * 1024);
    const { error } = await run(remote, 'huge');
    expect(error!.message).to.match(/^mcp: call "huge": connection closed: .*maximum size/);
  });

  it('a protocol error fails the call as mcp: call "<name>": <cause>', async () => {
    const { remote } = await open();
    const { error } = await run(remote, 'protocol_error');
    expect(error!.message).to.equal(
      'mcp: call "protocol_error": MCP error -32602: no such tool here',
    );
  });

  it('a call that hears nothing for `timeout` ms fails, and the server is told to cancel it', async () => {
    const { remote, stderrLine } = await open({ timeout: 100 });
    const { error } = await run(remote, 'silent');
    expect(error!.message).to.match(/^mcp: call "silent": .*timed out/i);
    expect(await stderrLine('cancelled')).to.match(/^cancelled \d+$/);
  });

  it('progress restarts the timeout, and every progress arrives before the result, the last included', async () => {
    const { remote } = await open({ timeout: 200 });
    const { events, error } = await run(remote, 'ticking');
    expect(error).to.equal(undefined);
    expect(
      events
        .filter((e) => !e.final)
        .map((e) => (e.result.details as { progress: number }).progress),
    ).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('unsubscribing from a call sends MCP cancellation', async () => {
    const { remote, stderrLine } = await open();
    const subscription: Subscription = start(remote, 'wait').subscribe();
    await remote.refresh(); // the call's request is on the wire before the list's
    subscription.unsubscribe();
    expect(await stderrLine('cancelled')).to.match(/^cancelled \d+$/);
  });

  it('close() fails a waiting call at once, and every later call, with "mcp: connection closed"', async () => {
    const { remote } = await open();
    let failure: Error | undefined;
    start(remote, 'wait').subscribe({ error: (e: Error) => (failure = e) });
    await remote.refresh();
    const closing = remote.close();
    expect(failure?.message).to.equal('mcp: connection closed');
    await closing;
    expect((await run(remote, 'quick')).error?.message).to.equal('mcp: connection closed');
  });
});

describe('connectMcp given something that is not a transport', () => {
  for (const [what, given] of [
    ['a URL', new URL('http://127.0.0.1:1/mcp')],
    ['a string', 'http://127.0.0.1:1/mcp'],
    ['undefined', undefined],
  ] as const)
    it(`refuses ${what} with a TypeError that names the transports to use`, async () => {
      const failure = await connectMcp(given as never).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).to.be.instanceOf(TypeError);
      expect((failure as Error).message).to.match(
        /^connectMcp: expected an MCP transport \(httpTransport\(url\), stdioTransport\(\.\.\.\) or the SDK's\), got /,
      );
    });
});
