/**
 * What the fleet reads from Redis is untrusted (adapters/redis/fleet-message.ts): a malformed
 * "job finished" or "job failed" entry written straight into the queue's event stream, or a
 * malformed end in a job's hash, fails that one call with a one-line error naming the job, and
 * every other call goes on to its end; a job whose data is not a call fails unrun on its worker.
 * Needs Debian's redis-server (started here; skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { jobIdOf, queueTools, runWorker, type FleetWorker } from '../../adapters/redis/index.js';
import { executeBatch, tool, type ExecutionEvent, type Tool } from '../../index.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { scaled } from '../support/time.js';

const started = new Set<string>();
const releases = new Map<string, () => void>();

/** `hold` runs until its label is released, then says it ran. */
const hold: Tool = tool({
  name: 'hold',
  description: 'Waits until released.',
  parameters: z.object({ label: z.string() }),
  execute: ({ label }) =>
    new Promise<string>((resolve) => {
      started.add(label);
      releases.set(label, () => resolve(`ran ${label}`));
    }),
});

const quiet = { onWarning: () => undefined };

const finals = (events: ExecutionEvent[]) =>
  events
    .filter((e) => e.final)
    .sort((a, b) => a.index - b.index)
    .map((e) => (e.error === undefined ? e.result!.output : `error: ${e.error.message}`));

describe('the fleet reads Redis as untrusted', function () {
  this.timeout(scaled(30_000));
  let redis: TestRedis;
  let raw: Redis;
  let worker: FleetWorker;

  before(async function () {
    skipWithoutRedis(this, 'the fleet message tests');
    redis = await startRedis();
    raw = new Redis(redis.url);
    worker = await runWorker([hold], { connection: redis.url, concurrency: 8, ...quiet });
  });
  after(async () => {
    raw?.disconnect();
    await worker?.close(true);
    await redis?.stop();
  });

  it('fails only the calls whose end in the event stream is malformed, naming their jobs; the others finish', async () => {
    const fleet = queueTools([hold], { connection: redis.url, batchId: 'stream' });
    const labels = ['null', 'quoted', 'bare', 'no-reason', 'bad-failure', 'fine-1', 'fine-2'];
    const calls = labels.map((label) => ({ id: label, args: JSON.stringify({ label }) }));
    const job = (id: string) => jobIdOf({ id, args: '' }, 'stream');
    try {
      const done = lastValueFrom(
        executeBatch(
          calls.map((call) => ({ tool: fleet.tools[0]!, call })),
          { maxParallel: 8 },
        ).pipe(toArray()),
      );
      await until(() => labels.every((label) => started.has(label)), 'every call running');
      const events = 'bull:agenttool:events';
      const add = (...fields: string[]) => raw.xadd(events, '*', ...fields);
      await add('event', 'completed', 'jobId', job('null'), 'returnvalue', 'null');
      await add('event', 'completed', 'jobId', job('quoted'), 'returnvalue', '"x"');
      await add('event', 'completed', 'jobId', job('bare'), 'returnvalue', 'x');
      await add('event', 'failed', 'jobId', job('no-reason'));
      await add(
        'event',
        'failed',
        'jobId',
        job('bad-failure'),
        'failedReason',
        'agenttool-failure:[',
      );
      await add('event', 'progress', 'jobId', job('fine-1'), 'data', '{not json');
      for (const label of ['fine-1', 'fine-2']) releases.get(label)!();
      const results = finals(await done);
      expect(results.slice(5)).to.deep.equal(['ran fine-1', 'ran fine-2']);
      expect(results.slice(0, 5)).to.deep.equal([
        `error: fleet: job ${job('null')}: its result is not a call's end: null`,
        `error: fleet: job ${job('quoted')}: its result is not a call's end: "x"`,
        `error: fleet: job ${job('bare')}: its result is not JSON: "x"`,
        `error: fleet: job ${job('no-reason')}: its failure gives no reason: undefined`,
        `error: fleet: job ${job('bad-failure')}: its failure is not JSON: "["`,
      ]);
    } finally {
      for (const release of releases.values()) release();
      await fleet.close();
    }
  });

  it('fails a call whose job hash holds a malformed end, naming the job', async () => {
    // A queue no worker reads: the job's end is what this test writes.
    const fleet = queueTools([hold], { connection: redis.url, queue: 'forged', ...quiet });
    const id = jobIdOf({ id: 'h1', args: '' });
    const queue = new Queue('forged', { connection: { host: '127.0.0.1', port: redis.port } });
    try {
      await queue.add('hold', { anything: true }, { jobId: id });
      await raw.hset(`bull:forged:${id}`, 'returnvalue', '{"output":7}', 'finishedOn', Date.now());
      await raw.lrem('bull:forged:wait', 0, id);
      await raw.zadd('bull:forged:completed', Date.now(), id);
      const events = await lastValueFrom(
        executeBatch([{ tool: fleet.tools[0]!, call: { id: 'h1', args: '{"label":"h"}' } }]).pipe(
          toArray(),
        ),
      );
      expect(finals(events)).to.deep.equal([
        `error: fleet: job ${id}: its result is not a call's end: {"output":7}`,
      ]);
    } finally {
      await queue.close();
      await fleet.close();
    }
  });

  it('fails unrun, on its worker, a job whose data is not a call', async () => {
    const queue = new Queue('agenttool', { connection: { host: '127.0.0.1', port: redis.port } });
    try {
      const job = await queue.add('hold', { tool: 'hold', call: { id: 5 } } as never);
      const failed = await new Promise<string>((resolve) => {
        const look = async (): Promise<void> => {
          const state = await queue.getJobState(job.id!);
          if (state === 'failed') resolve((await queue.getJob(job.id!))!.failedReason);
          else setTimeout(() => void look(), 20);
        };
        void look();
      });
      expect(failed).to.contain(`fleet: job ${job.id}: its data is not a call`);
      expect(started.has('undefined')).to.equal(false);
    } finally {
      await queue.close();
    }
  });
});
