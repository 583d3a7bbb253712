/**
 * `--otlp <url>` (docs/telemetry.md): `agenttool run`, `serve` and `worker` export their spans over
 * OTLP/HTTP with the official exporter, to a collector played here by a loopback server that keeps
 * what it is sent (OTLP/HTTP's JSON encoding). A worker's spans join the dispatcher's trace.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { executeBatch } from '../../index.js';
import { boundedFlush, FLUSH_LIMIT_MS, tracesEndpoint } from '../../cli/otlp.js';
import { finished, runCli, serveCli, startCli } from '../support/cli.js';
import { skipWithoutRedis, startRedis } from '../support/redis.js';
import { scaled } from '../support/time.js';

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A collector on loopback: every span it is sent, with the service that sent it. */
async function collector(): Promise<{
  url: string;
  server: Server;
  paths: string[];
  spans: (OtlpSpan & { service: string })[];
}> {
  const spans: (OtlpSpan & { service: string })[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: OtlpSpan['attributes'] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const service = String(
          rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
        );
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, service });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, paths, spans };
}

const attr = (span: OtlpSpan, key: string): unknown =>
  Object.values(span.attributes.find((a) => a.key === key)?.value ?? {})[0];

const call = (call_id: string, name: string, args: object) =>
  JSON.stringify({ type: 'function_call', call_id, name, arguments: JSON.stringify(args) });

describe('agenttool --otlp', function () {
  this.timeout(scaled(60_000));
  let otlp: Awaited<ReturnType<typeof collector>>;
  beforeEach(async () => (otlp = await collector()));
  afterEach(() => otlp.server.close());

  it('run: one trace, agenttool run over each call’s execute_tool span, sent before it exits', async () => {
    const turn = [
      call('a', 'slow_count', { to: 2, step_ms: 1 }),
      call('b', 'slow_count', { to: 'many' }),
    ].join('\n');
    const { status, stderr } = await runCli(['run', '-', '--json', '--otlp', otlp.url], {
      stdin: turn,
    });
    expect(status, stderr).to.equal(1); // b's bad arguments fail it
    expect(otlp.paths).to.include('/v1/traces');
    const root = otlp.spans.find((s) => s.name === 'agenttool run')!;
    const calls = otlp.spans.filter((s) => s.name === 'execute_tool slow_count');
    expect(calls).to.have.length(2);
    for (const span of calls) {
      expect(span.traceId).to.equal(root.traceId);
      expect(span.parentSpanId).to.equal(root.spanId);
      expect(span.service).to.equal('agenttool');
    }
    const failed = calls.find((s) => attr(s, 'gen_ai.tool.call.id') === 'b')!;
    expect(attr(failed, 'error.type')).to.equal('invalid_arguments');
  });

  it('serve: each served call a tools/call SERVER span over its execute_tool span', async () => {
    const serving = serveCli(['--otlp', `${otlp.url}/v1/traces`]);
    const remote = await connectMcp(httpTransport(await serving.url));
    const count = remote.tools.find((t) => t.name === 'slow_count')!;
    await lastValueFrom(
      executeBatch([{ tool: count, call: { id: 'x', args: '{"to":1,"step_ms":1}' } }]).pipe(
        toArray(),
      ),
    );
    await remote.close();
    serving.child.kill('SIGTERM');
    const done = await serving.done;
    expect(done.status, done.stderr).to.equal(0);
    const server = otlp.spans.find((s) => s.name === 'tools/call slow_count')!;
    expect(server.kind).to.equal(2); // OTLP's SPAN_KIND_SERVER
    const served = otlp.spans.find((s) => s.name === 'execute_tool slow_count')!;
    expect(served.parentSpanId).to.equal(server.spanId);
    expect(served.traceId).to.equal(server.traceId);
  });

  it('worker: a call run on the fleet is in the dispatcher’s trace', async function () {
    skipWithoutRedis(this, 'the --otlp worker test');
    const redis = await startRedis();
    let worker: ChildProcess | undefined;
    try {
      worker = startCli(['worker', '--redis', redis.url, '--otlp', otlp.url]);
      const workerDone = finished(worker);
      await new Promise<void>((resolve, reject) => {
        let said = '';
        worker!.stderr!.on('data', (d: Buffer) => {
          said += d.toString();
          if (said.includes('worker taking calls')) resolve();
        });
        worker!.once('exit', () => reject(new Error(said)));
      });
      const turn = call('a', 'slow_count', { to: 1, step_ms: 1 });
      const run = await runCli(['run', '-', '--redis', redis.url, '--otlp', otlp.url], {
        stdin: turn,
      });
      expect(run.status, run.stderr).to.equal(0);
      worker.kill('SIGTERM');
      await workerDone;
      const root = otlp.spans.find((s) => s.name === 'agenttool run')!;
      const calls = otlp.spans.filter((s) => s.name === 'execute_tool slow_count');
      // The dispatcher's span of the call, and the worker's under it.
      expect(calls).to.have.length(2);
      const dispatched = calls.find((s) => s.parentSpanId === root.spanId)!;
      const ran = calls.find((s) => s.parentSpanId === dispatched.spanId)!;
      expect(ran.traceId).to.equal(root.traceId);
    } finally {
      worker?.kill('SIGKILL');
      await redis.stop();
    }
  });

  it('refuses a URL that is not http(s), and --trace-url without --otlp or {traceId}', async () => {
    const bad = await runCli(['run', '-', '--otlp', 'ftp://x']);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.equal(
      'agenttool: --otlp takes an http:// or https:// URL, got "ftp://x"\n',
    );
    const alone = await runCli(['ui', '-', '--trace-url', 'http://j/trace/{traceId}']);
    expect(alone.stderr).to.equal('agenttool: --trace-url applies with --otlp only\n');
    const plain = await runCli(['ui', '-', '--otlp', otlp.url, '--trace-url', 'http://j/trace/']);
    expect(plain.stderr).to.contain('--trace-url takes an http:// or https:// URL with {traceId}');
  });

  it('sends to /v1/traces of a collector given by its root, and to any other path as given', () => {
    expect(tracesEndpoint('http://localhost:4318')).to.equal('http://localhost:4318/v1/traces');
    expect(tracesEndpoint('http://localhost:4318/')).to.equal('http://localhost:4318/v1/traces');
    expect(tracesEndpoint('https://otel.example/api/traces')).to.equal(
      'https://otel.example/api/traces',
    );
  });
});

/** A collector that takes the connection and never answers, cut off when the test is over. */
async function hangingCollector(): Promise<{ url: string; close(): void }> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => void sockets.push(socket.resume()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => (sockets.forEach((s) => s.destroy()), server.close()) };
}

/** A collector that answers 200 a byte at a time, every 100 ms, for ever. */
async function tricklingCollector(): Promise<{ url: string; close(): void }> {
  const timers: NodeJS.Timeout[] = [];
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    timers.push(setInterval(() => res.write(' '), 100));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () => (timers.forEach(clearInterval), server.closeAllConnections(), server.close()),
  };
}

/** A loopback address nothing listens on: connecting is refused. */
async function refusingCollector(): Promise<{ url: string; close(): void }> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise((resolve) => server.close(resolve));
  return { url, close: () => undefined };
}

const dropped =
  /^agenttool: --otlp: the last spans were not sent to http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(.+\); exiting without them$/gm;

describe('agenttool --otlp: a collector that does not take the spans costs the exit at most 5 s', function () {
  this.timeout(scaled(60_000));
  // Generous over the 5 s limit (a loaded machine), well under the exporter's own 10 s.
  const ceiling = FLUSH_LIMIT_MS + 2_500;

  for (const [kind, start] of [
    ['never answers', hangingCollector],
    ['refuses the connection', refusingCollector],
    ['answers a byte at a time', tricklingCollector],
  ] as const)
    it(`run: exits once the limit is up when the collector ${kind}, saying the spans were dropped`, async () => {
      const collector = await start();
      try {
        const child = startCli(['run', '-', '--json', '--otlp', collector.url], {
          stdin: call('a', 'slow_count', { to: 1, step_ms: 1 }),
        });
        // The run's work is done once its result is on stdout; the rest is the export's end.
        const answered = new Promise<number>((resolve) =>
          child.stdout!.once('data', () => resolve(performance.now())),
        );
        const done = await finished(child);
        const took = performance.now() - (await answered);
        expect(done.status, done.stderr).to.equal(0);
        expect(done.stdout).to.contain('"call_id":"a"');
        expect(done.stderr.match(dropped), done.stderr).to.have.length(1);
        expect(took, done.stderr).to.be.below(ceiling);
      } finally {
        collector.close();
      }
    });

  it('serve: exits on SIGTERM once the limit is up when the collector never answers', async () => {
    const collector = await hangingCollector();
    try {
      const serving = serveCli(['--otlp', collector.url]);
      const remote = await connectMcp(httpTransport(await serving.url));
      const count = remote.tools.find((t) => t.name === 'slow_count')!;
      await lastValueFrom(
        executeBatch([{ tool: count, call: { id: 'x', args: '{"to":1,"step_ms":1}' } }]).pipe(
          toArray(),
        ),
      );
      await remote.close();
      const stopped = performance.now();
      serving.child.kill('SIGTERM');
      const done = await serving.done;
      expect(done.status, done.stderr).to.equal(0);
      expect(done.stderr.match(dropped), done.stderr).to.have.length(1);
      expect(performance.now() - stopped, done.stderr).to.be.below(ceiling);
    } finally {
      collector.close();
    }
  });
});

describe('--otlp: the last flush, bounded (virtual time)', () => {
  const scheduler = () =>
    new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  const sent = { s: { sent: true } };

  it('ends with the flush when it ends in time, sent or failed', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(boundedFlush(cold('2000ms (a|)'))).toBe('2000ms (s|)', sent);
      expectObservable(boundedFlush(cold('4999ms |'))).toBe('4999ms (s|)', sent);
      expectObservable(boundedFlush(cold('1000ms #', {}, new Error('Request timed out')))).toBe(
        '1000ms (f|)',
        { f: { sent: false, why: 'Request timed out' } },
      );
    });
  });

  it('abandons a flush still going at the limit, and unsubscribes from it', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const flush = cold('-');
      expectObservable(boundedFlush(flush)).toBe(`${FLUSH_LIMIT_MS}ms (x|)`, {
        x: { sent: false, why: 'no answer within 5 s' },
      });
      expectSubscriptions(flush.subscriptions).toBe(`^ ${FLUSH_LIMIT_MS - 1}ms !`);
      const late = cold('6000ms (a|)');
      expectObservable(boundedFlush(late)).toBe('5000ms (x|)', {
        x: { sent: false, why: 'no answer within 5 s' },
      });
    });
    expect(FLUSH_LIMIT_MS).to.equal(5_000); // docs/telemetry.md promises 5 s
  });
});
