/**
 * A fleet worker that dies or is cut off from Redis takes its `bash` commands with it: killed
 * outright (SIGKILL), its commands' process groups are killed by their watchdogs; cut off from
 * Redis, its calls are stopped once their job locks go unrenewed for three quarters of
 * `lockDuration`, before another worker could take them; given SIGTERM with Redis dead, it exits
 * with status 0. Needs Debian's redis-server (started here; skipped with a line where it is
 * missing).
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { queueTools, runWorker } from '../../adapters/redis/index.js';
import { bash } from '../../cli/tools/bash.js';
import { executeBatch, tool } from '../../index.js';
import { finished, startCli } from '../support/cli.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { scaled } from '../support/time.js';

/** Whether process `pid` still runs (a zombie nobody has reaped yet does not). */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** A bash call that starts `sleep 60` in the background, writes its pid to `file`, and waits. */
const sleeper = (id: string, file: string) => ({
  id,
  args: JSON.stringify({
    command: `sleep 60 & echo $! > ${file}.tmp; mv ${file}.tmp ${file}; wait`,
  }),
});

const pidIn = (file: string): number => Number(readFileSync(file, 'utf8').trim());

describe('a fleet worker that dies or loses Redis', function () {
  this.timeout(scaled(60_000));
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-worker-death-'));
  let redis: TestRedis | undefined;

  before(function () {
    skipWithoutRedis(this, 'the fleet worker death tests');
  });
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it('kills the bash command of a worker killed outright (SIGKILL)', async () => {
    redis = await startRedis();
    const worker = startCli(['worker', '--redis', redis.url]);
    const done = finished(worker);
    let said = '';
    worker.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    await until(() => said.includes('worker taking calls'), 'the worker starting', 15_000, 20);
    const fleet = queueTools([bash], { connection: redis.url, batchId: 'killed' });
    const file = join(dir, 'killed.pid');
    const running = executeBatch([{ tool: fleet.tools[0]!, call: sleeper('k', file) }]).subscribe();
    try {
      await until(() => existsSync(file), 'the command starting', 15_000, 20);
      const pid = pidIn(file);
      expect(alive(pid)).to.equal(true);
      worker.kill('SIGKILL');
      await done;
      // The watchdog acts on the worker's death: well within this ceiling.
      await until(() => !alive(pid), 'the command dying with its worker', 10_000, 20);
    } finally {
      running.unsubscribe();
      await fleet.close();
    }
  });

  it('stops the calls of a worker cut off from Redis once their locks go unrenewed, killing their bash commands', async () => {
    redis = await startRedis();
    const reasons: string[] = [];
    const hang = tool({
      name: 'hang',
      description: 'Waits until its signal aborts.',
      parameters: z.object({}),
      execute: (_args, context) =>
        new Promise<string>((_resolve, reject) =>
          context.signal.addEventListener('abort', () => {
            reasons.push(String(context.signal.reason));
            reject(context.signal.reason as Error);
          }),
        ),
    });
    const worker = await runWorker([bash, hang], {
      connection: redis.url,
      concurrency: 2,
      lockDuration: 2_000,
      onError: () => undefined,
      onWarning: () => undefined,
    });
    const fleet = queueTools([bash, hang], {
      connection: redis.url,
      batchId: 'cut-off',
      onError: () => undefined,
    });
    const file = join(dir, 'cut-off.pid');
    const running = executeBatch([
      { tool: fleet.tools[0]!, call: sleeper('b', file) },
      { tool: fleet.tools[1]!, call: { id: 'h', args: '{}' } },
    ]).subscribe({ error: () => undefined });
    try {
      await until(() => existsSync(file) && worker.running === 2, 'both calls running', 15_000, 20);
      const pid = pidIn(file);
      await redis.kill();
      await until(() => !alive(pid), 'the command stopped', 10_000, 20);
      // Redis is dead: no dispatcher can cancel it, and the worker is not closed; only the watch
      // on its lock stops it.
      await until(() => reasons.length === 1, 'the other call stopped', 10_000, 20);
      await until(() => worker.running === 0, 'the worker’s calls ended', 10_000, 20);
    } finally {
      running.unsubscribe();
      await Promise.all([fleet.close(), worker.close(true)]);
    }
  });

  it('exits with status 0 on SIGTERM when its Redis is dead', async () => {
    redis = await startRedis();
    const worker = startCli(['worker', '--redis', redis.url]);
    const done = finished(worker);
    let said = '';
    worker.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    await until(() => said.includes('worker taking calls'), 'the worker starting', 15_000, 20);
    await redis.kill();
    await until(() => said.includes('Redis:'), 'the worker noticing', 15_000, 20);
    const signalled = Date.now();
    worker.kill('SIGTERM');
    const { status, stderr } = await done;
    expect(status).to.equal(0);
    expect(stderr).to.contain('SIGTERM: running calls finish').and.not.to.contain('did not close');
    // Nothing is left to wait for once closed (it used to wait for its connections' next try of
    // Redis, 2 s and more): a generous ceiling, for a loaded machine.
    expect(Date.now() - signalled).to.be.below(3_000);
  });
});
