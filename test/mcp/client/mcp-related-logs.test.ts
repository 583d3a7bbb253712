/**
 * Which call a server's log message belongs to: one sent on a call's own HTTP response stream is
 * that call's, one marked with a call's token is that call's (an agenttool server marks each
 * call's messages), any other is no call's.
 */
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import {
  connectMcp,
  httpTransport,
  type McpLogMessage,
  type McpRemote,
} from '../../../adapters/mcp-client/index.js';
import { LogMarker } from '../../../adapters/mcp-client/related-logs.js';
import { CALL_TOKEN } from '../../../adapters/mcp-shared/call-token.js';
import { createMcpServer } from '../../../adapters/mcp-server/index.js';
import { runTool } from '../../support/run.js';
import { gate, only, overHttp } from '../../support/sdk-peers.js';
import { scaled } from '../../support/time.js';

const log = (data: string, meta?: Record<string, unknown>): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data, ...(meta === undefined ? {} : { _meta: meta }) },
  });

/** Every message of an SSE text: its data lines, parsed. */
const messages = (text: string): unknown[] =>
  text
    .split(/\r\n|\n|\r/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as unknown);

describe('LogMarker: a call response stream whose log messages become the call’s', () => {
  const stream = [
    `event: message\nid: 1\ndata: ${log('one')}\n\n`,
    `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}\n\n`,
    `data: ${log('two', { other: 1 })}\r\n\r\n`,
    `data: ${log('mine', { [CALL_TOKEN]: 'another' })}\n\n`,
    `data: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"notifications/message"}]}}\n\n`,
  ].join('');

  it('marks each log message without a token, and changes nothing else', () => {
    const marker = new LogMarker('call-1');
    const out = marker.push(stream) + marker.flush();
    expect(messages(out)).to.deep.equal([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'one', _meta: { [CALL_TOKEN]: 'call-1' } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 1 },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'two', _meta: { other: 1, [CALL_TOKEN]: 'call-1' } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'mine', _meta: { [CALL_TOKEN]: 'another' } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        result: { content: [{ type: 'text', text: 'notifications/message' }] },
      },
    ]);
    // The other fields and line ends stay as they came.
    expect(out).to.include('event: message\nid: 1\ndata: ');
    expect(out).to.include('\r\n\r\n');
  });

  it('gives the same text however the stream is cut into chunks', () => {
    const whole = new LogMarker('call-1');
    const expected = whole.push(stream) + whole.flush();
    for (let cut = 1; cut < stream.length; cut += 7) {
      const marker = new LogMarker('call-1');
      let out = '';
      for (let at = 0; at < stream.length; at += cut)
        out += marker.push(stream.slice(at, at + cut));
      expect(out + marker.flush(), `chunks of ${cut}`).to.equal(expected);
    }
  });

  it('reads an event that comes in many chunks once, not once per chunk', () => {
    // A large result in small chunks: searching the held text anew on each one would cost the
    // square of its size. Every character regular expressions look at is counted.
    const exec = RegExp.prototype.exec;
    let looked = 0;
    RegExp.prototype.exec = function (this: RegExp, text: string) {
      looked += text.length - (this.global || this.sticky ? this.lastIndex : 0);
      return exec.call(this, text);
    };
    const result = `data: {"jsonrpc":"2.0","id":7,"result":{"text":"${'x'.repeat(200_000)}"}}\n\n`;
    let out = '';
    try {
      const marker = new LogMarker('call-1');
      for (let at = 0; at < result.length; at += 1024)
        out += marker.push(result.slice(at, at + 1024));
      out += marker.flush();
    } finally {
      RegExp.prototype.exec = exec;
    }
    expect(out).to.equal(result);
    expect(looked).to.be.below(3 * result.length);
  });

  it('passes what it cannot read as it came: malformed JSON, data over several lines, an unfinished event', () => {
    const odd = [
      'data: {"method":"notifications/message", oops\n\n',
      'data: {"jsonrpc":"2.0","method":"notifications/message",\ndata: "params":{"level":"info","data":"x"}}\n\n',
      'data: {"jsonrpc":"2.0","method":"notifications/message","params":["not","an","object"]}\n\n',
      'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":null}}\n\n',
      `data: ${log('cut short')}`,
    ].join('');
    const marker = new LogMarker('call-1');
    expect(marker.push(odd) + marker.flush()).to.equal(odd);
  });
});

/**
 * An SDK-built server (not agenttool) whose `work` call waits for its gate, then logs `step N`
 * as the request's (on its response stream) and `session N` as the session's.
 */
function upstream(gates: { open: Promise<void> }[]): Server {
  const server = new Server(
    { name: 'upstream', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'work', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const step = (request.params.arguments as { step: number }).step;
    await gates[step]!.open;
    await extra.sendNotification({
      method: 'notifications/message',
      params: { level: 'info', data: `step ${step}` },
    });
    await server.sendLoggingMessage({ level: 'notice', data: `session ${step}` });
    return { content: [{ type: 'text', text: `done ${step}` }] };
  });
  return server;
}

/** The progress outputs and final output of a run. */
const outputs = (run: Awaited<ReturnType<typeof runTool>>) =>
  run.events.map((e) => [e.final, e.result.output]);

/**
 * Runs `work` steps 0 and 1 of `remote` at once, step 1 let through first, and expects each call
 * to have its own step's log message as its progress.
 */
async function twoCalls(remote: McpRemote, gates: { release(): void }[]): Promise<void> {
  const first = runTool(only(remote, 'work'), { step: 0 });
  const second = runTool(only(remote, 'work'), { step: 1 });
  gates[1]!.release();
  const b = await second;
  gates[0]!.release();
  const a = await first;
  expect(outputs(a)).to.deep.equal([
    [false, 'step 0'],
    [true, 'done 0'],
  ]);
  expect(outputs(b)).to.deep.equal([
    [false, 'step 1'],
    [true, 'done 1'],
  ]);
}

describe('connectMcp: which call a log message belongs to', function () {
  this.timeout(scaled(15_000));
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it("over HTTP, a message on a call's own response stream is that call's, though two calls run", async () => {
    const gates = [gate(), gate()];
    const served = await overHttp(upstream(gates));
    closing.push(() => served.close());
    const logs: McpLogMessage[] = [];
    const remote = await connectMcp(httpTransport(served.url), {
      versionNegotiation: { mode: 'legacy' },
      onLog: (m) => logs.push(m),
    });
    closing.push(() => remote.close());
    await twoCalls(remote, gates);
    // The session's messages (on its own stream, if the client has it open) name no call.
    expect(logs.filter((m) => m.tool !== undefined)).to.deep.equal([
      { level: 'info', data: 'step 1', text: 'step 1', tool: 'work' },
      { level: 'info', data: 'step 0', text: 'step 0', tool: 'work' },
    ]);
    expect(logs.filter((m) => m.tool === undefined).every((m) => /^session/.test(m.text))).to.equal(
      true,
    );
  });

  it("through an agenttool proxy, each call's messages reach that call: the proxy marks them", async () => {
    const gates = [gate(), gate()];
    const served = await overHttp(upstream(gates));
    closing.push(() => served.close());
    const remote = await connectMcp(httpTransport(served.url), {
      versionNegotiation: { mode: 'legacy' },
      onLog: () => undefined,
    });
    closing.push(() => remote.close());
    // In memory, as over stdio, nothing on the wire says which request a message is for.
    const proxy = createMcpServer({ name: 'proxy', version: '1' }, remote.tools);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(serverSide);
    const logs: McpLogMessage[] = [];
    const downstream = await connectMcp(clientSide, {
      versionNegotiation: { mode: 'legacy' },
      onLog: (m) => logs.push(m),
    });
    closing.push(() => downstream.close());
    await twoCalls(downstream, gates);
    expect(logs).to.deep.equal([
      { level: 'info', data: 'step 1', text: 'step 1', tool: 'work' },
      { level: 'info', data: 'step 0', text: 'step 0', tool: 'work' },
    ]);
  });
});
