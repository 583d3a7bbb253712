/**
 * The web front's server against requests its page never sends: malformed requests over a raw
 * socket each get a 4xx and the server goes on serving, and requests another site can make (an
 * `<img>`, an EventSource, a form) cannot start a run.
 */
import { expect } from 'chai';
import { connect } from 'node:net';
import { ToolSet, type OutputItem } from '../../index.js';
import { bundledTools } from '../../cli/tools/index.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { startUiServer, type UiServer } from '../../cli/ui/ui-server.js';
import { EventStreamReader } from '../support/ui.js';
import { scaled } from '../support/time.js';

const TURN: OutputItem[] = [
  {
    type: 'function_call',
    call_id: 'count',
    name: 'slow_count',
    arguments: JSON.stringify({ to: 2, step_ms: 10 }),
  },
];

/** Sends `bytes` as they are and resolves with the status line of the answer ("" if none). */
function raw(server: UiServer, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(server.url.port), server.url.hostname);
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\r\n')) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
    socket.end(bytes);
  });
}

describe('web front: hostile requests', function () {
  this.timeout(scaled(20_000));
  let server: UiServer;
  let host: string;
  const readers: EventStreamReader[] = [];

  beforeEach(async () => {
    server = await startUiServer({
      source: liveTurn(TURN, new ToolSet(bundledTools), { title: 'hostile' }),
      autoRun: true,
    });
    host = server.url.host;
  });
  afterEach(async () => {
    for (const reader of readers.splice(0)) reader.close();
    await server.close();
  });

  const malformed: [string, (token: string) => string | Buffer, RegExp][] = [
    [
      'a target that is no path (//a:b/)',
      () => `GET //a:b/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a target naming another host',
      () => `GET //evil.example/events HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 400 /,
    ],
    [
      'an absolute-form target',
      () => `GET http://evil.example/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 400 /,
    ],
    [
      'the asterisk target',
      () => `OPTIONS * HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a method the server does not serve',
      () => `DELETE / HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 405 /,
    ],
    [
      'a method that is not HTTP',
      () => `BREW / HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 400 /,
    ],
    ['no Host', () => 'GET / HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 4\d\d /],
    ['another Host', () => 'GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n', /^HTTP\/1\.1 403 /],
    [
      'a Host with a bad port',
      () => 'GET / HTTP/1.1\r\nHost: 127.0.0.1:b\r\n\r\n',
      /^HTTP\/1\.1 403 /,
    ],
    [
      'headers of 64 KiB',
      () => `GET / HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(65536)}\r\n\r\n`,
      /^HTTP\/1\.1 431 /,
    ],
    ['a request line that is not HTTP', () => 'hello there\r\n\r\n', /^HTTP\/1\.1 400 /],
    [
      'an unknown route',
      () => `GET /nope/../../etc/passwd HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      /^HTTP\/1\.1 404 /,
    ],
    [
      'a POST to an unknown route',
      (t) => `POST /nope?token=${t} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`,
      /^HTTP\/1\.1 404 /,
    ],
    [
      'a body that is not JSON',
      (t) =>
        `POST /run?token=${t} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{oops`,
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a body larger than 16 KiB',
      (t) =>
        `POST /run?token=${t} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(1000)}`,
      /^HTTP\/1\.1 413 /,
    ],
    [
      'a chunked body larger than 16 KiB',
      (t) =>
        `POST /run?token=${t} HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\n${(20000).toString(16)}\r\n${'x'.repeat(20000)}\r\n0\r\n\r\n`,
      /^HTTP\/1\.1 413 /,
    ],
    [
      'a bad chunk size',
      (t) =>
        `POST /run?token=${t} HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a NUL in the target',
      () => Buffer.from(`GET /\0 HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1'),
      /^HTTP\/1\.1 400 /,
    ],
  ];
  for (const [what, bytes, status] of malformed)
    it(`answers ${what} with a 4xx, starts nothing, and goes on serving`, async () => {
      expect(await raw(server, bytes(server.token))).to.match(status);
      expect(server.runs.runCount).to.equal(0);
      const page = await fetch(server.url);
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain(`content="${server.token}"`);
    });

  it('goes on serving after a client cuts a request short', async () => {
    const socket = connect(Number(server.url.port), server.url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /run?token=${server.token} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await fetch(server.url)).status).to.equal(200);
    expect(server.runs.runCount).to.equal(0);
  });

  const events = (query: string): URL => new URL(`events${query}`, server.url);

  const crossSite: [string, () => [URL, Record<string, string>]][] = [
    ['without the token', () => [events(''), {}]],
    ['with another token', () => [events('?token=guess'), {}]],
    [
      'from another origin',
      () => [events(`?token=${server.token}`), { origin: 'https://evil.example' }],
    ],
    [
      'marked cross-site by the browser',
      () => [events(`?token=${server.token}`), { 'sec-fetch-site': 'cross-site' }],
    ],
    [
      'marked same-site by the browser',
      () => [events(`?token=${server.token}`), { 'sec-fetch-site': 'same-site' }],
    ],
  ];
  for (const [what, request] of crossSite)
    it(`refuses the event stream ${what}: the first run does not start`, async () => {
      const [url, headers] = request();
      const response = await fetch(url, { headers });
      expect(response.status).to.equal(403);
      expect(((await response.json()) as { error: string }).error).to.be.a('string');
      expect(server.runs.runCount).to.equal(0);
      const run = await fetch(new URL(url.search === '' ? 'run' : `run${url.search}`, server.url), {
        method: 'POST',
        headers,
      });
      expect(run.status).to.equal(403);
      expect(server.runs.runCount).to.equal(0);
    });

  it('streams, and starts the first run, for its own page (token, same origin)', async () => {
    const reader = new EventStreamReader(events(`?token=${server.token}`));
    readers.push(reader);
    await reader.waitFor((r) => r.type === 'output');
    expect(server.runs.runCount).to.equal(1);
  });

  it('takes an action from its own page with a JSON body or none', async () => {
    const own = { origin: server.url.origin, 'sec-fetch-site': 'same-origin' };
    const cancel = (body?: string) =>
      fetch(new URL(`cancel?token=${server.token}`, server.url), {
        method: 'POST',
        headers: own,
        ...(body === undefined ? {} : { body }),
      });
    expect((await cancel()).status).to.equal(409); // no run going: the request itself was fine
    expect((await cancel('{}')).status).to.equal(409);
  });
});
