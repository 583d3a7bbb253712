import { expect } from 'chai';
import { connectMcp, httpTransport, type McpRemote } from '../../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { CallContext } from '../../../index.js';
import { runTool } from '../../support/run.js';
import { only as find } from '../../support/sdk-peers.js';
import { scaled } from '../../support/time.js';
import { hangTool, sessionCounter } from '../../support/tools.js';

const counter = sessionCounter('counter', (session, count) => ({
  session: session.id,
  client: session.client?.name,
  count,
}));
const hanging = hangTool();

describe('MCP over Streamable HTTP on loopback', function () {
  this.timeout(scaled(10_000));
  let http: McpHttpServer;
  const opened: McpRemote[] = [];
  const open = async (name: string): Promise<McpRemote> => {
    // Sessions are MCP 2025-11-25's: these clients open one (MCP 2026-07-28 has none).
    const remote = await connectMcp(httpTransport(http.url), {
      clientInfo: { name, version: '1.0.0' },
      versionNegotiation: { mode: 'legacy' },
    });
    opened.push(remote);
    return remote;
  };

  before(async () => {
    http = await serveHttp({
      factory: () =>
        createMcpServer({ name: 'http-tools', version: '1.0.0' }, [counter, hanging.tool]),
    });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });
  after(() => http.close());

  it('listens on 127.0.0.1 by default, on the port it chose', () => {
    expect(http.endpoint.hostname).to.equal('127.0.0.1');
    expect(http.endpoint.port).to.equal(String(http.port));
    expect(http.endpoint.pathname).to.equal('/mcp');
  });

  it('gives its address as a string that prints as itself, and as a URL for the SDK transport', () => {
    expect(http.url).to.equal(`http://127.0.0.1:${http.port}/mcp`);
    expect(`${http.url}`).to.equal(http.url);
    expect(http.endpoint).to.be.instanceOf(URL);
    expect(http.endpoint.href).to.equal(http.url);
  });

  it('serves two clients at once, each in its own session with its own state', async () => {
    const [alpha, beta] = await Promise.all([open('alpha'), open('beta')]);
    const ask = async (remote: McpRemote) =>
      JSON.parse(
        (await runTool(find(remote, 'counter'))).events.at(-1)!.result.output as string,
      ) as {
        session: string;
        client: string;
        count: number;
      };
    const [a1, b1] = await Promise.all([ask(alpha), ask(beta)]);
    const a2 = await ask(alpha);
    expect([a1.client, b1.client, a2.client]).to.deep.equal(['alpha', 'beta', 'alpha']);
    expect([a1.count, b1.count, a2.count]).to.deep.equal([1, 1, 2]);
    expect(a1.session).to.equal(a2.session);
    expect(a1.session).to.not.equal(b1.session);
    expect(http.sessions).to.be.at.least(2);
  });

  it('a client that closes ends its session on the server at once', async () => {
    const before = http.sessions;
    const remote = await open('brief');
    expect(http.sessions).to.equal(before + 1);
    await remote.close();
    expect(http.sessions).to.equal(before);
  });

  it('a client that disconnects mid-call cancels the served call', async () => {
    const remote = await open('leaver');
    const { started: running, aborted: cancelled } = hanging.watch();
    const call = { id: 'h', args: '' };
    let failure: Error | undefined;
    find(remote, 'hang')
      .execute(call, new CallContext(call))
      .subscribe({ error: (e: Error) => (failure = e) });
    await running;
    await remote.close();
    expect(failure?.message).to.equal('mcp: connection closed');
    expect(await cancelled).to.be.instanceOf(Error);
  });

  it('answers an unknown session with 404, a foreign Origin with 403 and an oversized body with 413', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await post({ 'mcp-session-id': 'no-such-session' }, ping)).status).to.equal(404);
    expect((await post({ origin: 'https://evil.example' }, ping)).status).to.equal(403);
    expect((await post({}, ping)).status).to.equal(400);
    expect((await post({}, 'x'.repeat(5 * 1024 * 1024))).status).to.equal(413);
    expect((await fetch(new URL('/elsewhere', http.url))).status).to.equal(404);
  });
});
