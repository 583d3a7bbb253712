/**
 * The web front's server over real HTTP with the bundled tools: the page, the event stream, the
 * buttons' endpoints (run, cancel one call, cancel the batch), replay, and the refusals that keep
 * other sites out.
 */
import { expect } from 'chai';
import { request } from 'node:http';
import { ToolSet, type FunctionCallItem, type OutputItem } from '../../index.js';
import { bundledTools } from '../../cli/tools/index.js';
import { CANCELLED_BY_USER } from '../../cli/ui/call-controls.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { replayRun } from '../../cli/ui/replay-run.js';
import type { EventRecord, RunRecord, StreamRecord } from '../../cli/ui/run-records.js';
import type { RunSource } from '../../cli/ui/run-source.js';
import { startUiServer, type UiServer, type UiServerOptions } from '../../cli/ui/ui-server.js';
import { EventStreamReader } from '../support/ui.js';
import { scaled } from '../support/time.js';

const call = (id: string, name: string, args: object): FunctionCallItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});

/** A bash call that prints its process group id, then runs until stopped. */
const longShell = (id: string): OutputItem =>
  call(id, 'bash', { command: 'echo $$; echo started; sleep 30' });

const tools = new ToolSet(bundledTools);
const live = (items: OutputItem[]): RunSource => liveTurn(items, tools, { title: 'test turn' });

const open: UiServer[] = [];
const readers: EventStreamReader[] = [];

async function serve(source: RunSource, options: Partial<UiServerOptions> = {}) {
  const server = await startUiServer({ source, ...options });
  open.push(server);
  return server;
}

/** A URL of the server's with its token, as the page it serves sends it. */
const withToken = (server: UiServer, path: string): URL =>
  new URL(`${path}?token=${server.token}`, server.url);

function events(server: UiServer): EventStreamReader {
  const reader = new EventStreamReader(withToken(server, 'events'));
  readers.push(reader);
  return reader;
}

async function post(server: UiServer, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(withToken(server, path), { method: 'POST', headers });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

const isOutput = (r: StreamRecord): boolean => r.type === 'output';
const finalOf =
  (index: number) =>
  (r: StreamRecord): boolean =>
    r.type === 'event' && r.index === index && r.final;

/** The process group id the long shell call printed. */
async function shellGroup(reader: EventStreamReader, index: number): Promise<number> {
  const first = (await reader.waitFor(
    (r) => r.type === 'event' && r.index === index && !r.final,
  )) as EventRecord;
  return Number(first.result!.output);
}

/** Resolves once no process of group `pgid` is left (bounded: fails after 5 s, scaled). */
async function groupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + scaled(5000);
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process group ${pgid} still runs`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

afterEach(async () => {
  for (const reader of readers.splice(0)) reader.close();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe('web front: the server', function () {
  this.timeout(scaled(20_000));

  it('serves the page, its script and its stylesheet on loopback', async () => {
    const server = await serve(live([call('a', 'list_dir', { path: '.' })]));
    expect(server.url.hostname).to.equal('127.0.0.1');
    const page = await fetch(server.url);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.contain("script-src 'self'");
    expect(await page.text()).to.contain('<script type="module" src="app.js">');
    const script = await fetch(new URL('app.js', server.url));
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(await script.text()).to.contain('EventSource');
    const css = await fetch(new URL('app.css', server.url));
    expect(css.headers.get('content-type')).to.match(/^text\/css/);
    expect((await fetch(new URL('nope', server.url))).status).to.equal(404);
    expect((await fetch(new URL('run', server.url), { method: 'PUT' })).status).to.equal(405);
  });

  it('refuses a request naming another host, and a POST from another site', async () => {
    const server = await serve(live([call('a', 'list_dir', { path: '.' })]));
    const status = await new Promise<number>((resolve, reject) =>
      request(server.url, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end(),
    );
    expect(status).to.equal(403);
    const foreign = await post(server, 'run', { origin: 'http://attacker.example' });
    expect(foreign.status).to.equal(403);
    expect(server.runs.runCount).to.equal(0);
    const own = await post(server, 'run', { origin: server.url.origin });
    expect(own.status).to.equal(202);
  });

  it('streams the turn with every call waiting before it runs, then the run as it happens', async () => {
    const items = [
      call('count', 'slow_count', { to: 3, step_ms: 20 }),
      call('list', 'list_dir', { path: 'cli/tools' }),
    ];
    const server = await serve(live(items));
    const reader = events(server);
    await reader.waitFor((r) => r.type === 'batch');
    expect(reader.records).to.deep.equal([
      { type: 'session', mode: 'live', title: 'test turn' },
      {
        type: 'batch',
        jobs: [
          {
            index: 0,
            callId: 'count',
            name: 'slow_count',
            args: items[0]!.arguments,
            resource: '',
          },
          { index: 1, callId: 'list', name: 'list_dir', args: items[1]!.arguments, resource: '' },
        ],
      },
    ]);
    expect(await post(server, 'run')).to.deep.equal({ status: 202, body: { ok: true } });
    const output = await reader.waitFor(isOutput);
    const run = reader.records.slice(2);
    expect(run[0]!.type).to.equal('batch');
    const progress = run.filter((r) => r.type === 'event' && r.index === 0 && !r.final);
    expect(progress.map((r) => (r as EventRecord).result!.details)).to.deep.equal([
      { progress: 1, total: 3, message: 'counted 1 of 3' },
      { progress: 2, total: 3, message: 'counted 2 of 3' },
      { progress: 3, total: 3, message: 'counted 3 of 3' },
    ]);
    const times = run.flatMap((r) => ('at' in r ? [r.at] : []));
    expect(times).to.deep.equal([...times].sort((a, b) => a - b));
    expect(output).to.deep.equal({
      type: 'output',
      items: [
        { type: 'function_call_output', call_id: 'count', output: 'counted to 3' },
        {
          type: 'function_call_output',
          call_id: 'list',
          output: 'ask-user.ts\nbash.ts\nconfirm-step.ts\nfiles.ts\nindex.ts\nslow-count.ts',
        },
      ],
    });
  });

  it('runs one batch at a time, and shows a page that connects late the run from its start', async () => {
    const server = await serve(live([call('count', 'slow_count', { to: 5, step_ms: 40 })]));
    expect((await post(server, 'run')).status).to.equal(202);
    const busy = await post(server, 'run');
    expect(busy).to.deep.equal({
      status: 409,
      body: { error: 'a run is going: cancel it or wait for it to end' },
    });
    const early = events(server);
    await early.waitFor(isOutput);
    expect((await post(server, 'run')).status).to.equal(202);
    await early.waitFor((r) => r.type === 'batch' && early.records.indexOf(r) > 2);
    const late = events(server);
    await late.waitFor(isOutput);
    // The late page sees only the second run, from its batch record on.
    expect(late.records.filter((r) => r.type === 'batch')).to.have.length(1);
    expect(late.records[1]!.type).to.equal('batch');
    expect(late.records.slice(1)).to.deep.equal(
      early.records.slice(early.records.findIndex(isOutput) + 1),
    );
  });

  it('cancels one call: its process group stops, its row ends cancelled, the rest goes on', async () => {
    const server = await serve(
      live([
        longShell('long'),
        call('count', 'slow_count', { to: 3, step_ms: 20 }),
        call('after', 'bash', { command: 'echo after' }),
      ]),
    );
    const reader = events(server);
    await post(server, 'run');
    const pgid = await shellGroup(reader, 0);
    expect(await post(server, 'calls/0/cancel')).to.deep.equal({ status: 202, body: { ok: true } });
    const final = (await reader.waitFor(finalOf(0))) as EventRecord;
    expect(final.error).to.deep.equal({
      name: 'CancelledError',
      code: 'cancelled',
      message: CANCELLED_BY_USER,
    });
    await groupGone(pgid);
    const output = (await reader.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items.map((item) => item.output)).to.deep.equal([
      `Error: ${CANCELLED_BY_USER}`,
      'counted to 3',
      'after\n[exit code 0]',
    ]);
    expect((await post(server, 'calls/0/cancel')).status).to.equal(409);
    expect(await post(server, 'calls/9/cancel')).to.deep.equal({
      status: 404,
      body: { error: 'no call #9 in this turn' },
    });
    expect(await post(server, 'cancel')).to.deep.equal({
      status: 409,
      body: { error: 'no run is going' },
    });
  });

  it('refuses to cancel a call that has ended while the batch still runs', async () => {
    const server = await serve(live([call('quick', 'list_dir', { path: '.' }), longShell('long')]));
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(finalOf(0));
    expect(await post(server, 'calls/0/cancel')).to.deep.equal({
      status: 409,
      body: { error: 'call #0 has ended' },
    });
  });

  it('cancels the batch: the tools stop and every unfinished call ends cancelled', async () => {
    const server = await serve(
      live([
        longShell('long'),
        call('count', 'slow_count', { to: 1000, step_ms: 50 }),
        call('queued', 'bash', { command: 'echo never' }),
      ]),
    );
    const reader = events(server);
    await post(server, 'run');
    const pgid = await shellGroup(reader, 0);
    expect((await post(server, 'cancel')).status).to.equal(202);
    const output = (await reader.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items.map((item) => item.output)).to.deep.equal(
      Array(3).fill('Error: call cancelled'),
    );
    const codes = [0, 1, 2].map(
      (i) => (reader.records.find(finalOf(i)) as EventRecord).error?.code,
    );
    expect(codes).to.deep.equal(['cancelled', 'cancelled', 'cancelled']);
    await groupGone(pgid);
    expect(server.runs.running).to.equal(false);
  });

  it('starts the first run when the first page connects, with autoRun', async () => {
    const server = await serve(live([call('count', 'slow_count', { to: 2, step_ms: 10 })]), {
      autoRun: true,
    });
    const first = events(server);
    await first.waitFor(isOutput);
    expect(first.records.map((r) => r.type)).to.deep.equal([
      'session',
      'batch',
      'start',
      'event',
      'event',
      'event',
      'output',
    ]);
    const second = events(server);
    await second.waitFor(isOutput);
    expect(server.runs.runCount).to.equal(1);
  });

  it('replays a saved run record for record, and cannot cancel it', async () => {
    const recorded = await serve(
      live([
        call('count', 'slow_count', { to: 3, step_ms: 20 }),
        call('missing', 'read_file', { path: 'no/such/file' }),
      ]),
    );
    const original = events(recorded);
    await post(recorded, 'run');
    await original.waitFor(isOutput);
    const saved = original.records.slice(2) as RunRecord[];

    const server = await serve(replayRun(saved, { title: 'run.jsonl', speed: 10 }));
    const reader = events(server);
    await reader.waitFor((r) => r.type === 'batch');
    expect(reader.records[0]).to.deep.equal({
      type: 'session',
      mode: 'replay',
      title: 'run.jsonl',
    });
    expect((await post(server, 'run')).status).to.equal(202);
    expect(await post(server, 'cancel')).to.deep.equal({
      status: 409,
      body: { error: 'a replay cannot be cancelled' },
    });
    expect((await post(server, 'calls/0/cancel')).status).to.equal(409);
    await reader.waitFor(isOutput);
    expect(reader.records.slice(2)).to.deep.equal(saved);
  });

  it('on close, stops a running batch and ends the event streams', async () => {
    const server = await serve(live([longShell('long')]));
    const reader = events(server);
    await post(server, 'run');
    const pgid = await shellGroup(reader, 0);
    await server.close();
    open.splice(open.indexOf(server), 1);
    await reader.done;
    await groupGone(pgid);
    expect(reader.records.find(finalOf(0))).to.have.nested.property('error.code', 'cancelled');
  });
});
