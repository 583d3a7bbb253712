import { expect } from 'chai';
import { connect } from 'node:net';
import { connectMcp, httpTransport } from '../../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  isLoopbackHost,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { servedCounting } from '../../support/counting-server.js';
import { initializeRequest } from '../../support/mcp-messages.js';
import { rawRequest as send } from '../../support/raw-http.js';
import { scaled } from '../../support/time.js';

/** An HTTP/1.0 request with no Host header at all, written by hand. */
function sendWithoutHost(url: URL, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let reply = '';
    socket.setEncoding('utf8').on('data', (d: string) => (reply += d));
    socket.on('end', () => resolve(reply.split('\r\n')[0]!));
    socket.on('error', reject);
    socket.write(
      `POST ${url.pathname} HTTP/1.0\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

const initialize = JSON.stringify(initializeRequest);

function callOf(args: object): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'count', arguments: args },
  });
}

describe('who may connect to the Streamable HTTP server', function () {
  this.timeout(scaled(10_000));
  const token = 's3cret-token-value';
  const server = servedCounting('guarded', {
    token,
    maxBodyBytes: 64 * 1024,
    allowedHosts: ['tools.example.com', 'other.example:8443'],
    allowedOrigins: ['https://app.example'],
  });
  let http: McpHttpServer;
  let good: Record<string, string>;

  before(async () => {
    http = server.http;
    const base = { ...server.headers, authorization: `Bearer ${token}` };
    const opened = await send(http.url, base, [initialize]);
    expect(opened.status).to.equal(200);
    const session = opened.headers['mcp-session-id'] as string;
    const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(
      (await send(http.url, { ...base, 'mcp-session-id': session }, [initialized])).status,
    ).to.equal(202);
    good = { ...base, 'mcp-session-id': session };
  });
  beforeEach(() => {
    server.executions = 0;
  });

  it('runs a call that names an allowed Host and carries the token', async () => {
    const reply = await send(http.url, good, [callOf({})]);
    expect(reply.status).to.equal(200);
    expect(reply.body).to.include('"text":"1"');
    expect(server.executions).to.equal(1);
  });

  it('refuses a call without the token, or with a wrong one, with 401 and runs nothing', async () => {
    const without = { ...good };
    delete without.authorization;
    const cases: [Record<string, string>, string][] = [
      [without, 'Bearer'],
      [{ ...good, authorization: 'Bearer wrong' }, 'Bearer error="invalid_token"'],
      [{ ...good, authorization: `Bearer ${token}x` }, 'Bearer error="invalid_token"'],
      [{ ...good, authorization: `Bearer ${token.slice(0, -1)}` }, 'Bearer error="invalid_token"'],
      [
        { ...good, authorization: `Basic ${Buffer.from(`u:${token}`).toString('base64')}` },
        'Bearer',
      ],
      [{ ...good, authorization: token }, 'Bearer'],
    ];
    for (const [headers, challenge] of cases) {
      const reply = await send(http.url, headers, [callOf({})]);
      expect(reply.status, headers.authorization).to.equal(401);
      expect(reply.headers['www-authenticate']).to.equal(challenge);
      expect(JSON.parse(reply.body).error.message).to.match(/^Unauthorized: /);
    }
    expect(server.executions).to.equal(0);
  });

  it('takes the scheme in any case, as HTTP says', async () => {
    const reply = await send(http.url, { ...good, authorization: `bearer ${token}` }, [callOf({})]);
    expect(reply.status).to.equal(200);
    expect(server.executions).to.equal(1);
  });

  it('refuses a call naming a foreign Host with 403 even with the token: DNS rebinding', async () => {
    for (const host of [
      `attacker.example:${http.port}`,
      'attacker.example',
      `127.0.0.1.attacker.example:${http.port}`,
      `other.example:${http.port}`,
      `localhost@attacker.example:${http.port}`,
    ]) {
      const reply = await send(http.url, { ...good, host }, [callOf({})]);
      expect(reply.status, host).to.equal(403);
      expect(JSON.parse(reply.body).error.message).to.equal('Forbidden: host not allowed');
    }
    expect(await sendWithoutHost(http.endpoint, callOf({}))).to.match(/^HTTP\/1\.1 403 /);
    expect(server.executions).to.equal(0);
  });

  it('accepts the loopback names on any port, the bound address and the listed hosts', async () => {
    const hosts = [
      `localhost:${http.port}`,
      'localhost',
      `LOCALHOST.:${http.port}`,
      `[::1]:${http.port}`,
      `127.0.0.1:${http.port}`,
      'tools.example.com',
      'Tools.Example.com:443',
      'other.example:8443',
    ];
    for (const host of hosts) {
      const reply = await send(http.url, { ...good, host }, [callOf({})]);
      expect(reply.status, host).to.equal(200);
    }
    expect(server.executions).to.equal(hosts.length);
  });

  it('refuses a foreign or null Origin with 403 and runs nothing', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      `http://attacker.example:${http.port}`,
      'file://',
      'https://app.example.evil',
    ]) {
      const reply = await send(http.url, { ...good, origin }, [callOf({})]);
      expect(reply.status, origin).to.equal(403);
    }
    expect(server.executions).to.equal(0);
  });

  it('accepts a loopback Origin, the request own origin and a listed one', async () => {
    const origins = [
      'http://localhost:5173',
      `http://127.0.0.1:${http.port}`,
      'https://app.example',
      'HTTPS://APP.EXAMPLE',
    ];
    for (const origin of origins) {
      const reply = await send(http.url, { ...good, origin }, [callOf({})]);
      expect(reply.status, origin).to.equal(200);
    }
    const sameOrigin = await send(
      http.url,
      { ...good, host: 'tools.example.com', origin: 'https://tools.example.com' },
      [callOf({})],
    );
    expect(sameOrigin.status).to.equal(200);
    expect(server.executions).to.equal(origins.length + 1);
  });

  it('refuses a body over the cap with 413, whether declared or streamed, and runs nothing', async () => {
    const big = callOf({ pad: 'x'.repeat(70 * 1024) });
    const declared = await send(http.url, good, [big]);
    expect(declared.status).to.equal(413);
    expect(declared.headers.connection).to.equal('close');
    const chunked = { ...good, 'transfer-encoding': 'chunked' };
    const streamed = await send(http.url, chunked, [
      big.slice(0, 40_000),
      big.slice(40_000),
      'x'.repeat(1024 * 1024),
    ]);
    expect(streamed.status).to.equal(413);
    expect(server.executions).to.equal(0);
    expect((await send(http.url, good, [callOf({ pad: 'x'.repeat(60 * 1024) })])).status).to.equal(
      200,
    );
  });

  it('answers a body that is not JSON, not UTF-8 or nested too deep, and keeps serving', async () => {
    const garbage = await send(http.url, good, ['{"jsonrpc":"2.0",']);
    expect(garbage.status).to.equal(400);
    const notUtf8 = Buffer.concat([
      Buffer.from(callOf({ s: '' }).replace('"s":""', '"s":"')),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      Buffer.from('"}}}'),
    ]);
    const replaced = await send(http.url, good, [notUtf8]);
    expect(replaced.status).to.equal(200);
    expect(server.executions).to.equal(1);
    const deep = callOf({ a: 0 }).replace(
      '"a":0',
      `"a":${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    );
    const refused = await send(http.url, good, [deep]);
    expect(refused.status).to.equal(200);
    expect(refused.body).to.include('Error: invalid arguments: arguments are nested too deeply');
    expect(server.executions).to.equal(1);
    expect((await send(http.url, good, [callOf({})])).body).to.include('"text":"2"');
  });

  it('checks the token on GET and DELETE too, and before the path', async () => {
    const without = { ...good };
    delete without.authorization;
    expect((await send(http.url, without, [], 'GET')).status).to.equal(401);
    expect((await send(http.url, without, [], 'DELETE')).status).to.equal(401);
    expect((await send(new URL('/elsewhere', http.url), without, [], 'GET')).status).to.equal(401);
    expect(http.sessions).to.equal(1);
  });

  it('opens no session for an initialize that is refused', async () => {
    const before = http.sessions;
    const without = { ...good };
    delete without.authorization;
    delete without['mcp-session-id'];
    expect((await send(http.url, without, [initialize])).status).to.equal(401);
    expect(http.sessions).to.equal(before);
  });

  it('serves an MCP client that sends the token, and refuses one that does not', async () => {
    const remote = await connectMcp(
      httpTransport(http.url, { headers: { authorization: `Bearer ${token}` } }),
    );
    try {
      expect(remote.tools.map((t) => t.name)).to.deep.equal(['count']);
    } finally {
      await remote.close();
    }
    let refused: Error | undefined;
    await connectMcp(httpTransport(http.url)).catch((err: Error) => (refused = err));
    expect(refused?.message).to.match(/^mcp: connect: .*Unauthorized: a bearer token is required/);
  });

  it('refuses an empty token, a malformed allowed host and a zero cap before listening', async () => {
    const factory = () => createMcpServer({ name: 'x', version: '1' }, []);
    for (const options of [
      { token: '' },
      { token: '  ' },
      { allowedHosts: ['http://x/'] },
      { maxBodyBytes: 0 },
    ]) {
      let error: unknown;
      await serveHttp({ factory, ...options }).then(
        (server) => server.close(),
        (err: unknown) => (error = err),
      );
      expect(error, JSON.stringify(options)).to.be.instanceOf(RangeError);
    }
  });

  describe('an address that is not loopback', () => {
    const factory = () => createMcpServer({ name: 'x', version: '1' }, []);
    // 192.0.2.1 (TEST-NET-1) is on no interface here: a server that gets past the check fails to
    // bind it (EADDRNOTAVAIL), so nothing listens beyond loopback while this runs.
    const outcome = (options: Parameters<typeof serveHttp>[0]) =>
      serveHttp(options).then(
        async (server) => {
          await server.close();
          return 'listening';
        },
        (err: Error) => err.message,
      );

    it('is refused without a token, in one line saying why and how to allow it', async () => {
      for (const host of ['0.0.0.0', '::', '192.0.2.1'])
        expect(await outcome({ factory, host })).to.equal(
          `serveHttp: refusing to serve on ${host} without a token: anyone who can reach the port would run the tools (set token, or allowUnauthenticatedNetwork: true)`,
        );
    });

    it('is served with a token, or when the caller allows an unauthenticated network', async () => {
      const host = '192.0.2.1';
      expect(await outcome({ factory, host, token: 't0ken' })).to.match(/EADDRNOTAVAIL/);
      expect(await outcome({ factory, host, allowUnauthenticatedNetwork: true })).to.match(
        /EADDRNOTAVAIL/,
      );
    });

    it('is not needed for loopback, however it is spelt', async () => {
      for (const host of ['127.0.0.1', 'localhost'])
        expect(await outcome({ factory, host }), host).to.equal('listening');
      for (const host of ['::1', '[::1]', '127.0.0.2', '::ffff:127.0.0.1', 'LOCALHOST'])
        expect(isLoopbackHost(host), host).to.equal(true);
      for (const host of ['0.0.0.0', '::', '192.0.2.1', 'localhost.example', '128.0.0.1'])
        expect(isLoopbackHost(host), host).to.equal(false);
    });
  });
});
