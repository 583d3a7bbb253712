/**
 * CORS on the Streamable HTTP server: what a browser needs to let a page of a listed origin call
 * the server with its token, and nothing for any other origin.
 */
import { expect } from 'chai';
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
} from '../../../adapters/mcp-server/index.js';
import { parseArgs } from '../../../cli/args.js';
import { runCli } from '../../support/cli.js';
import { servedCounting } from '../../support/counting-server.js';
import { initializeRequest } from '../../support/mcp-messages.js';
import { rawRequest } from '../../support/raw-http.js';
import { scaled } from '../../support/time.js';

const APP = 'https://app.example';

function listOf(header: string | string[] | undefined): string[] {
  return String(header ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

describe('CORS on the Streamable HTTP server', function () {
  this.timeout(scaled(10_000));
  const token = 'cors-test-token';
  const server = servedCounting('cors', {
    token,
    allowedOrigins: [APP, 'http://LOCALHOST:4200/'],
  });

  const preflight = (origin: string, path = server.http.endpoint.pathname) =>
    rawRequest(
      new URL(path, server.http.url),
      {
        host: server.headers.host!,
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,mcp-session-id',
      },
      [],
      'OPTIONS',
    );

  it('answers a preflight from a listed origin without the token, with what the MCP client sends', async () => {
    for (const origin of [APP, 'http://localhost:4200']) {
      const reply = await preflight(origin);
      expect(reply.status, origin).to.equal(204);
      expect(reply.headers['access-control-allow-origin']).to.equal(origin);
      expect(listOf(reply.headers['access-control-allow-methods'])).to.include.members([
        'get',
        'post',
        'delete',
      ]);
      expect(listOf(reply.headers['access-control-allow-headers'])).to.include.members([
        'authorization',
        'content-type',
        'mcp-session-id',
        'mcp-protocol-version',
        'last-event-id',
      ]);
      expect(reply.headers['access-control-allow-credentials']).to.equal(undefined);
      expect(listOf(reply.headers.vary)).to.include('origin');
    }
    expect(server.http.sessions).to.equal(0);
    expect(server.executions).to.equal(0);
  });

  it('refuses a preflight from any origin not listed, loopback ones included, with no CORS header', async () => {
    for (const origin of ['https://evil.example', 'http://localhost:5173', 'null']) {
      const reply = await preflight(origin);
      expect(reply.status, origin).to.equal(403);
      expect(reply.headers['access-control-allow-origin'], origin).to.equal(undefined);
      expect(reply.headers['access-control-allow-headers'], origin).to.equal(undefined);
    }
  });

  it('lets a listed origin read the answers, the session id among them, never with a wildcard', async () => {
    const opened = await rawRequest(
      server.http.url,
      { ...server.headers, origin: APP, authorization: `Bearer ${token}` },
      [JSON.stringify(initializeRequest)],
    );
    expect(opened.status).to.equal(200);
    expect(opened.headers['access-control-allow-origin']).to.equal(APP);
    expect(listOf(opened.headers['access-control-expose-headers'])).to.include('mcp-session-id');
    expect(opened.headers['mcp-session-id']).to.be.a('string');
    expect(opened.headers['access-control-allow-credentials']).to.equal(undefined);

    // A refusal is readable too: the page can tell a wrong token from a network failure.
    const refused = await rawRequest(
      server.http.url,
      { ...server.headers, origin: APP, authorization: 'Bearer wrong' },
      [JSON.stringify(initializeRequest)],
    );
    expect(refused.status).to.equal(401);
    expect(refused.headers['access-control-allow-origin']).to.equal(APP);
    expect(listOf(refused.headers['access-control-expose-headers'])).to.include('www-authenticate');
  });

  it('sends no CORS header to an origin it does not list, even one it serves', async () => {
    const reply = await rawRequest(
      server.http.url,
      { ...server.headers, origin: 'http://localhost:5173', authorization: `Bearer ${token}` },
      [JSON.stringify(initializeRequest)],
    );
    expect(reply.status).to.equal(200);
    expect(reply.headers['access-control-allow-origin']).to.equal(undefined);
    expect(reply.headers['access-control-expose-headers']).to.equal(undefined);
  });

  it('still asks a preflight for the right Host and path', async () => {
    const foreignHost = await rawRequest(
      server.http.url,
      { host: 'rebound.example', origin: APP, 'access-control-request-method': 'POST' },
      [],
      'OPTIONS',
    );
    expect(foreignHost.status).to.equal(403);
    expect((await preflight(APP, '/elsewhere')).status).to.equal(404);
  });

  it('refuses a wildcard or anything but an http(s) origin in allowedOrigins', async () => {
    for (const entry of [
      '*',
      'https://*.example',
      'https://app.example/path',
      'file:///x',
      'app',
    ]) {
      const outcome = await serveHttp({
        allowedOrigins: [entry],
        factory: () => createMcpServer({ name: 'x', version: '1' }, []),
      }).catch((err: unknown) => err);
      if (!(outcome instanceof Error)) await (outcome as McpHttpServer).close();
      expect(outcome, entry).to.be.instanceOf(RangeError);
      expect((outcome as Error).message).to.equal(`allowedOrigins: not an origin: ${entry}`);
    }
  });
});

describe('agenttool serve --allow-origin', function () {
  this.timeout(scaled(20_000));

  it('collects every --allow-origin for the HTTP server', () => {
    const args = parseArgs([
      'serve',
      '--http',
      '0',
      '--allow-origin',
      APP,
      '--allow-origin=http://localhost:4200',
    ]);
    expect(args).to.include({ command: 'serve', http: 0 });
    expect((args as { allowOrigins: string[] }).allowOrigins).to.deep.equal([
      APP,
      'http://localhost:4200',
    ]);
  });

  it('refuses a wildcard, a path, or the flag without --http, with exit 2 and one line', async () => {
    for (const [argv, message] of [
      [['--http', '0', '--allow-origin', '*'], '--allow-origin takes an origin'],
      [['--http', '0', '--allow-origin', 'https://a.example/x'], '--allow-origin takes an origin'],
      [['--allow-origin', APP], '--allow-origin applies to --http only'],
    ] as const) {
      const result = await runCli(['serve', ...argv]);
      expect(result.status, argv.join(' ')).to.equal(2);
      expect(result.stderr, argv.join(' ')).to.contain(message);
      expect(result.stderr.trim().split('\n'), argv.join(' ')).to.have.length(1);
    }
  });
});
