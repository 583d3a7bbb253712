/**
 * The worker fleet from the command line: two `agenttool worker --redis` processes and
 * `agenttool run --redis` sending a turn to them give the output items a local run gives, with
 * the progress streamed back (`--json`). Needs Debian's redis-server (started here; skipped with a
 * line where it is missing).
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreamReader } from '../support/ui.js';
import { everythingServer, finished, runCli, startCli, type CliResult } from '../support/cli.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { scaled } from '../support/time.js';

const call = (call_id: string, name: string, args: object) =>
  JSON.stringify({ type: 'function_call', call_id, name, arguments: JSON.stringify(args) });

const TURN = [
  call('a', 'slow_count', { to: 3, step_ms: 50 }),
  call('b', 'slow_count', { to: 'many' }),
  call('c', 'read_file', { path: 'package.json', max_bytes: 20 }),
  call('d', 'no_such_tool', {}),
].join('\n');

type Line = { type: string; final?: boolean; callId?: string; items?: { output: string }[] };
const lines = (text: string): Line[] =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);

/** Resolves once `child` says on stderr that it takes calls; rejects if it exits first. */
function taking(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      if (said.includes('worker taking calls')) resolve();
    });
    child.once('exit', () => reject(new Error(`agenttool worker exited: ${said}`)));
  });
}

describe('agenttool worker and agenttool run --redis', function () {
  this.timeout(scaled(60_000));
  let redis: TestRedis;
  const workers: { child: ChildProcess; done: Promise<CliResult> }[] = [];

  before(async function () {
    skipWithoutRedis(this, 'the fleet command line tests');
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const child = startCli(['worker', '--redis', redis.url, '--concurrency', '2']);
      const done = finished(child);
      workers.push({ child, done });
      await taking(child);
    }
  });
  after(async () => {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.done));
    await redis?.stop();
  });

  it('gives the output items of a local run, progress streamed back', async () => {
    const remote = await runCli(['run', '-', '--json', '--redis', redis.url], { stdin: TURN });
    const local = await runCli(['run', '-', '--json'], { stdin: TURN });
    expect(remote.status, remote.stderr).to.equal(local.status);
    const out = lines(remote.stdout);
    expect(out.at(-1)!.items).to.deep.equal(lines(local.stdout).at(-1)!.items);
    expect(
      out.filter((l) => l.type === 'event' && l.final === false && l.callId === 'a').length,
    ).to.equal(3);
  });

  it('feeds the web front (agenttool ui --redis) the calls run on the fleet', async () => {
    const turn = join(mkdtempSync(join(tmpdir(), 'agenttool-fleet-ui-')), 'turn.jsonl');
    writeFileSync(turn, TURN);
    const ui = startCli(['ui', turn, '--no-open', '--redis', redis.url]);
    const done = finished(ui);
    const reader = await new Promise<EventStreamReader>((resolve, reject) => {
      let text = '';
      ui.stderr!.on('data', (d: Buffer) => {
        text += d.toString();
        const found = /the web front is at (http:\/\/\S+) /.exec(text);
        if (found === null) return;
        const page = new URL(found[1]!);
        void fetch(page)
          .then((r) => r.text())
          .then((html) => {
            const token = /<meta name="agenttool-token" content="([\w-]+)"/.exec(html)![1]!;
            resolve(new EventStreamReader(new URL(`events?token=${token}`, page)));
          }, reject);
      });
      ui.once('exit', () => reject(new Error(`agenttool ui exited: ${text}`)));
    });
    try {
      const output = (await reader.waitFor((r) => r.type === 'output')) as unknown as Line;
      const local = await runCli(['run', '-', '--json'], { stdin: TURN });
      expect(output.items).to.deep.equal(lines(local.stdout).at(-1)!.items);
    } finally {
      reader.close();
      ui.kill('SIGTERM');
      await done;
    }
  });

  it('runs an --mcp server’s tools on a worker that starts the server itself', async () => {
    const child = startCli([
      'worker',
      '--redis',
      redis.url,
      '--queue',
      'with-mcp',
      '--mcp',
      everythingServer,
      '--prefix',
      'every',
    ]);
    const done = finished(child);
    await taking(child);
    try {
      const stdin = call('e', 'every__echo', { message: 'through the fleet' });
      const args = ['--mcp', everythingServer, '--prefix', 'every'];
      const remote = await runCli(
        ['run', '-', '--redis', redis.url, '--queue', 'with-mcp', ...args],
        {
          stdin,
        },
      );
      const local = await runCli(['run', '-', ...args], { stdin });
      expect(remote.status, remote.stderr).to.equal(0);
      expect(JSON.parse(remote.stdout)).to.deep.equal(JSON.parse(local.stdout));
    } finally {
      child.kill('SIGTERM');
      await done;
    }
  });

  it('stops a worker on SIGTERM with status 0, saying so', async () => {
    const child = startCli(['worker', '--redis', redis.url]);
    const done = finished(child);
    await taking(child);
    child.kill('SIGTERM');
    const { status, stderr } = await done;
    expect(status).to.equal(0);
    expect(stderr).to.contain('SIGTERM: running calls finish, no new ones are taken');
  });

  it('keeps a worker whose Redis dies alive, says so once, and stops it on SIGTERM all the same', async () => {
    const own = await startRedis();
    const child = startCli(['worker', '--redis', own.url]);
    const done = finished(child);
    let said = '';
    child.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    const deadline = Date.now() + scaled(15_000);
    while (!said.includes('worker taking calls') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await own.kill();
    while (!said.includes('Redis:') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(child.exitCode).to.equal(null);
    expect(said.match(/fleet: queue "agenttool": Redis: /g)?.length).to.be.within(1, 3);
    child.kill('SIGTERM');
    const { status, stderr } = await done;
    expect(status).to.equal(0);
    expect(stderr).to.contain('SIGTERM: running calls finish');
  });

  it('refuses a worker without --redis, and --queue without --redis, in one line', async () => {
    const worker = await runCli(['worker']);
    expect(worker.status).to.equal(2);
    expect(worker.stderr).to.equal('agenttool: agenttool worker needs --redis redis://HOST:PORT\n');
    const run = await runCli(['run', '-', '--queue', 'q'], { stdin: TURN });
    expect(run.status).to.equal(2);
    expect(run.stderr).to.equal('agenttool: --queue applies with --redis only\n');
  });
});
