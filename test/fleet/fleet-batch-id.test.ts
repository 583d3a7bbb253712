/**
 * `agenttool run --redis --batch-id`: a run killed mid-batch and run again with the same id
 * resumes its batch, and the bash call that had run does not run again; a run without the flag
 * says its batch id. With `--secret-file`, the CLI's workers and dispatchers sign what they send; a
 * worker without a secret says what that means, and a short secret is refused. Needs Debian's
 * redis-server (started here; skipped with a line where it is missing).
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import {
  queueTools,
  runWorker,
  type FleetWorker,
  type QueuedTools,
} from '../../adapters/redis/index.js';
import { executeBatch, tool } from '../../index.js';
import { finished, runCli, startCli, type CliResult } from '../support/cli.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { scaled } from '../support/time.js';

const call = (call_id: string, name: string, args: object) =>
  JSON.stringify({ type: 'function_call', call_id, name, arguments: JSON.stringify(args) });

/** Resolves with its stderr once `child` says it takes calls; rejects if it exits first. */
function taking(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      if (said.includes('worker taking calls')) resolve(said);
    });
    child.once('exit', () => reject(new Error(`agenttool worker exited: ${said}`)));
  });
}

describe('agenttool run --redis --batch-id, and --secret-file', function () {
  this.timeout(scaled(60_000));
  let redis: TestRedis;
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-batch-id-'));
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, `${'s'.repeat(40)}\n`);
  let worker: { child: ChildProcess; done: Promise<CliResult> } | undefined;

  before(async function () {
    skipWithoutRedis(this, 'the fleet batch id tests');
    redis = await startRedis();
    const child = startCli([
      'worker',
      '--redis',
      redis.url,
      '--concurrency',
      '2',
      '--secret-file',
      secretFile,
    ]);
    worker = { child, done: finished(child) };
    const said = await taking(child);
    expect(said).to.contain('signed calls only').and.not.to.contain('warning');
  });
  after(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.done;
    await redis?.stop();
  });

  const fleetArgs = () => ['--redis', redis.url, '--secret-file', secretFile];

  it('resumes a batch killed mid-run: the bash call that ran gives its result and does not run again', async () => {
    const file = join(dir, 'ran.txt');
    const turn = [
      call('a', 'bash', { command: `echo ran >> ${file}; sleep 1; echo done` }),
      call('b', 'slow_count', { to: 2, step_ms: 20 }),
    ].join('\n');
    const args = ['run', '-', '--json', ...fleetArgs(), '--batch-id', 'resume-1'];
    const first = startCli(args, { stdin: turn });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    await until(() => existsSync(file), 'the bash call running', 15_000, 20);
    first.kill('SIGKILL');
    await exited;
    const again = await runCli(args, { stdin: turn });
    expect(again.status, again.stderr).to.equal(0);
    const items = (
      JSON.parse(again.stdout.trim().split('\n').at(-1)!) as {
        items: { call_id: string; output: string }[];
      }
    ).items;
    expect(items.find((item) => item.call_id === 'a')!.output).to.contain('done');
    expect(readFileSync(file, 'utf8')).to.equal('ran\n');
  });

  it('says the batch id it used when none is given, in one line', async () => {
    const result = await runCli(['run', '-', ...fleetArgs()], {
      stdin: call('c', 'slow_count', { to: 1, step_ms: 1 }),
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.match(
      /^agenttool: fleet batch ([0-9a-f-]{36}) \(resume it with --batch-id \1\)$/m,
    );
  });

  it('warns on a worker without a secret, and refuses a short one, in one line', async () => {
    const open = startCli(['worker', '--redis', redis.url, '--queue', 'open']);
    const done = finished(open);
    const said = await taking(open);
    open.kill('SIGTERM');
    await done;
    expect(said).to.contain('agenttool: warning: fleet: this worker has no secret');
    const short = join(dir, 'short');
    writeFileSync(short, 'tiny\n');
    const refused = await runCli(['worker', '--redis', redis.url, '--secret-file', short]);
    expect(refused.status).to.equal(2);
    expect(refused.stderr).to.contain(
      `the fleet secret in ${short} is 4 bytes; it must be at least 32`,
    );
  });
});

describe('queueTools with the batchId of a run that was cancelled', function () {
  this.timeout(scaled(30_000));
  let redis: TestRedis;
  let worker: FleetWorker;
  const runs = new Map<string, number>();
  /** Its first run per label waits until cancelled; a later one ends at once. */
  const firstHangs = (replay: 'safe' | 'unsafe') =>
    tool({
      name: `hang_${replay}`,
      description: 'x',
      replay,
      parameters: z.object({ label: z.string() }),
      execute: ({ label }, context) => {
        const n = (runs.get(label) ?? 0) + 1;
        runs.set(label, n);
        if (n > 1) return `ran ${label} (${n})`;
        return new Promise<string>((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(context.signal.reason as Error)),
        );
      },
    });
  const tools = [firstHangs('safe'), firstHangs('unsafe')];
  const jobs = (fleet: QueuedTools) =>
    (['safe', 'unsafe'] as const).map((replay) => ({
      tool: fleet.tools.find((t) => t.name === `hang_${replay}`)!,
      call: { id: replay, args: JSON.stringify({ label: replay }) },
    }));

  before(async function () {
    skipWithoutRedis(this, 'the fleet batch id tests');
    redis = await startRedis();
    worker = await runWorker(tools, {
      connection: redis.url,
      concurrency: 2,
      onWarning: () => undefined,
    });
  });
  after(async () => {
    await worker?.close(true);
    await redis?.stop();
  });

  it('runs a safe call that was cancelled mid-run again, and fails an unsafe one unrun (not_replayed)', async () => {
    const first = queueTools(tools, { connection: redis.url, batchId: 'cancelled-run' });
    const stopped = executeBatch(jobs(first)).subscribe();
    await until(() => runs.get('safe') === 1 && runs.get('unsafe') === 1, 'both calls running');
    stopped.unsubscribe();
    const queue = new Queue('agenttool', { connection: { host: '127.0.0.1', port: redis.port } });
    const failed = async () =>
      (await queue.getJobCounts('failed')).failed === 2 ? true : undefined;
    let both = false;
    await until(
      () => (void failed().then((yes) => (both = yes === true)), both),
      'both cancelled',
      10_000,
      50,
    );
    await queue.close();
    await first.close();
    const again = queueTools(tools, { connection: redis.url, batchId: 'cancelled-run' });
    try {
      const events = await lastValueFrom(executeBatch(jobs(again)).pipe(toArray()));
      const ends = events
        .filter((e) => e.final)
        .sort((a, b) => a.index - b.index)
        .map((e) => (e.error === undefined ? e.result!.output : `error: ${e.error.message}`));
      expect(ends).to.deep.equal([
        'ran safe (2)',
        'error: call "unsafe" was interrupted and not replayed: an earlier run of its batch cancelled it after it started, and tool "hang_unsafe" is not safe to run twice',
      ]);
      expect(runs.get('unsafe')).to.equal(1);
    } finally {
      await again.close();
    }
  });
});
