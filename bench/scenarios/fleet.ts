/**
 * Scenario 10, the worker fleet on BullMQ (Debian's redis-server started for the run; the
 * scenario says it was not measured where redis-server is missing): what a call costs through
 * `queueTools` and `runWorker` over the same call sent with BullMQ by hand (`queue.add`, then
 * `job.waitUntilFinished`, a Worker running the same function), calls one after another in
 * interleaved rounds; and the throughput of one, two and three workers (one call at a time each)
 * for a tool that waits 100 ms, a batch of 30 calls at once. Then against bare BullMQ (a Queue, a
 * Worker and QueueEvents, the same concurrency): the throughput of a batch of calls at once, the
 * median of one call alone, and the Redis commands a call costs (INFO commandstats, before and
 * after, on a Redis that serves nothing else).
 *
 * @module
 */
import { Queue, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { queueTools, runWorker, type FleetWorker } from '../../adapters/redis/index.js';
import { tool } from '../../lib/tool.js';
import { executeBatch } from '../../operators/execute-batch.js';
import { findRedis, startRedis } from '../../test/support/redis.js';
import { interleave, quantile, type Variant } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const upper = tool({
  name: 'upper',
  description: 'Upper-cases its text.',
  parameters: z.object({ text: z.string() }),
  replay: 'safe',
  execute: ({ text }) => text.toUpperCase(),
});

const wait = tool({
  name: 'wait',
  description: 'Waits 100 ms.',
  parameters: z.object({ n: z.number() }),
  replay: 'safe',
  execute: async ({ n }) => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return `waited ${n}`;
  },
});

let batches = 0;

/** Every command Redis has run so far, summed over INFO commandstats. */
async function commandsRun(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) total += Number(match[1]);
  return total;
}

const SCENARIO = '10 worker fleet';
const OURS = 'queueTools + runWorker';
const BARE = 'Queue + Worker + QueueEvents';

/**
 * The fleet (`queueTools` + `runWorker`) against bare BullMQ (Queue + Worker + QueueEvents), the
 * same function, the same concurrency, on one Redis: batch throughput, one call's median, and
 * the Redis commands per call.
 */
async function againstBare(url: string, port: number, scale: Scale): Promise<Row[]> {
  const sides = await BareSides.start(url, port);
  try {
    return [
      await sides.throughputRow(scale),
      await sides.aloneRow(scale),
      await sides.commandsRow(url, scale),
    ];
  } finally {
    await sides.close();
  }
}

/** Both sides of {@link againstBare}, started on one Redis: a call of each, and their rows. */
class BareSides {
  static readonly concurrency = 8;
  private n = 0;

  private constructor(
    private readonly worker: FleetWorker,
    private readonly fleet: ReturnType<typeof queueTools>,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly bare: Worker,
  ) {}

  static async start(url: string, port: number): Promise<BareSides> {
    const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null } as ConnectionOptions;
    const concurrency = BareSides.concurrency;
    const worker = await runWorker([upper], { connection: url, queue: 'vs-ours', concurrency });
    const fleet = queueTools([upper], { connection: url, queue: 'vs-ours' });
    const queue = new Queue('vs-bare', { connection });
    const events = new QueueEvents('vs-bare', { connection });
    const bare = new Worker(
      'vs-bare',
      async (job) => (job.data as { text: string }).text.toUpperCase(),
      { connection, concurrency },
    );
    await Promise.all([events.waitUntilReady(), bare.waitUntilReady()]);
    return new BareSides(worker, fleet, queue, events, bare);
  }

  private get queued() {
    return this.fleet.tools[0]!;
  }

  readonly oursCall = async (): Promise<void> => {
    await lastValueFrom(
      executeBatch([{ tool: this.queued, call: { id: `v${++this.n}`, args: '{"text":"hello"}' } }]),
    );
  };

  readonly bareCall = async (): Promise<void> => {
    const job = await this.queue.add(
      'upper',
      { text: 'hello' },
      { removeOnComplete: { age: 3600 } },
    );
    await job.waitUntilFinished(this.events);
  };

  /** A batch of calls at once, the sides in interleaved rounds: time per call. */
  async throughputRow(scale: Scale): Promise<Row> {
    const batch = Math.max(40, Math.round(400 * scale.size));
    const queued = this.queued;
    const [ours, them] = await interleave(
      [
        {
          name: 'fleet',
          calls: batch,
          clock: 'wall',
          run: async () => {
            const round = ++batches;
            await lastValueFrom(
              executeBatch(
                Array.from({ length: batch }, (_, i) => ({
                  tool: queued,
                  call: { id: `b${round}-${i}`, args: '{"text":"hello"}' },
                })),
                { maxParallel: batch },
              ),
            );
          },
        },
        {
          name: 'bare',
          calls: batch,
          clock: 'wall',
          run: async () => {
            await Promise.all(Array.from({ length: batch }, this.bareCall));
          },
        },
      ],
      { rounds: scale.rounds(11) },
    );
    return row({
      scenario: SCENARIO,
      name: `against bare BullMQ, concurrency ${BareSides.concurrency}: ${batch} calls at once, time per call (throughput)`,
      ours: { label: OURS, value: ours!.median, unit: 'ns/call' },
      baseline: { label: BARE, value: them!.median, unit: 'ns/call' },
      target: { on: 'ratio', max: 1.2, text: '<= 1.2x' },
    });
  }

  /** One call alone, the sides taking turns call by call: the median. */
  async aloneRow(scale: Scale): Promise<Row> {
    const single = Math.max(50, Math.round(300 * scale.size));
    const times = { ours: [] as number[], bare: [] as number[] };
    for (let i = 0; i < single; i++)
      for (const [side, one] of [
        ['ours', this.oursCall],
        ['bare', this.bareCall],
      ] as const) {
        const started = performance.now();
        await one();
        times[side].push((performance.now() - started) * 1e6);
      }
    return row({
      scenario: SCENARIO,
      name: `against bare BullMQ: one call alone, p50 of ${single}`,
      ours: { label: OURS, value: quantile(times.ours, 0.5), unit: 'ns/call' },
      baseline: { label: BARE, value: quantile(times.bare, 0.5), unit: 'ns/call' },
      target: { on: 'ratio', max: 1.2, text: '<= 1.2x' },
    });
  }

  /** Commands per call: each side alone, one call at a time. */
  async commandsRow(url: string, scale: Scale): Promise<Row> {
    const counter = new Redis(url);
    try {
      const perCall = async (one: () => Promise<void>, count: number) => {
        const before = await commandsRun(counter);
        for (let i = 0; i < count; i++) await one();
        // The INFO of this count is one command of its own.
        return ((await commandsRun(counter)) - before - 1) / count;
      };
      const count = Math.max(50, Math.round(200 * scale.size));
      const oursCommands = await perCall(this.oursCall, count);
      const bareCommands = await perCall(this.bareCall, count);
      return row({
        scenario: SCENARIO,
        name: `against bare BullMQ: Redis commands per call (INFO commandstats), ${count} calls`,
        ours: { label: OURS, value: oursCommands, unit: 'commands/call' },
        baseline: { label: BARE, value: bareCommands, unit: 'commands/call' },
        target: {
          on: 'ours',
          max: bareCommands + 2,
          text: `<= bare + 2 (${(bareCommands + 2).toFixed(1)})`,
        },
        note: "commands run inside BullMQ's scripts count, and so do the workers' own (lock renewals, stalled checks, blocking reads) while the calls run",
      });
    } finally {
      counter.disconnect();
    }
  }

  async close(): Promise<void> {
    const { worker, fleet, queue, events, bare } = this;
    await Promise.all([worker.close(), fleet.close(), queue.close(), events.close(), bare.close()]);
  }
}

export async function fleetScenario(scale: Scale): Promise<Row[]> {
  if (findRedis() === undefined)
    return [
      row({
        scenario: SCENARIO,
        name: 'a call through the fleet over BullMQ by hand',
        ours: { label: 'queueTools', value: 0, unit: 'ns/call' },
        note: 'not measured: redis-server is not installed (apt-get install redis-server)',
      }),
    ];
  const redis = await startRedis();
  try {
    return [
      await againstByHand(redis.url, redis.port, scale),
      ...(await spreadRows(redis.url)),
      ...(await againstBare(redis.url, redis.port, scale)),
    ];
  } finally {
    await redis.stop();
  }
}

/** Overhead: our fleet against BullMQ used directly, the same function behind both. */
async function againstByHand(url: string, port: number, scale: Scale): Promise<Row> {
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null } as ConnectionOptions;
  const calls = Math.max(50, Math.round(300 * scale.size));
  const ours = await runWorker([upper], { connection: url, queue: 'ours' });
  const fleet = queueTools([upper], { connection: url, queue: 'ours' });
  const byHand = new Queue('by-hand', { connection });
  const byHandEvents = new QueueEvents('by-hand', { connection });
  await byHandEvents.waitUntilReady();
  // The same function, as a BullMQ processor.
  const handWorker = new Worker(
    'by-hand',
    async (job) => (job.data as { text: string }).text.toUpperCase(),
    { connection },
  );
  await handWorker.waitUntilReady();
  const queued = fleet.tools[0]!;
  const variants: Variant[] = [
    {
      name: 'queueTools',
      calls,
      clock: 'wall',
      run: async () => {
        const round = ++batches;
        for (let i = 0; i < calls; i++)
          await lastValueFrom(
            executeBatch([
              { tool: queued, call: { id: `r${round}-${i}`, args: '{"text":"hello"}' } },
            ]),
          );
      },
    },
    {
      name: 'by hand',
      calls,
      clock: 'wall',
      run: async () => {
        for (let i = 0; i < calls; i++) {
          const job = await byHand.add(
            'upper',
            { text: 'hello' },
            { removeOnComplete: { age: 60 } },
          );
          await job.waitUntilFinished(byHandEvents);
        }
      },
    },
  ];
  const [fleetTime, handTime] = await interleave(variants, { rounds: scale.rounds(3) });
  await Promise.all([
    ours.close(),
    fleet.close(),
    byHand.close(),
    byHandEvents.close(),
    handWorker.close(),
  ]);
  return row({
    scenario: SCENARIO,
    name: `a call (add, run, result) one after another, ${calls} calls`,
    ours: { label: OURS, value: fleetTime!.median, unit: 'ns/call' },
    baseline: { label: 'BullMQ by hand', value: handTime!.median, unit: 'ns/call' },
    target: { on: 'ratio', max: 1.5, text: '<= 1.5x' },
    note: 'ours also checks the arguments, streams progress and listens for cancellation',
  });
}

/** Throughput: one, two and three workers, a waiting tool, 30 calls at once. */
async function spreadRows(url: string): Promise<Row[]> {
  const rates: number[] = [];
  for (const count of [1, 2, 3]) rates.push(await spreadRate(url, count));
  const one = rates[0]!;
  const rows = [
    row({
      scenario: SCENARIO,
      name: '1 worker, 30 calls of a 100 ms tool at once: throughput',
      ours: { label: '1 worker', value: one, unit: 'calls/s' },
    }),
  ];
  for (const [i, count] of [
    [1, 2],
    [2, 3],
  ] as const)
    rows.push(
      row({
        scenario: SCENARIO,
        name: `${count} workers, the same batch: throughput`,
        ours: { label: `${count} workers`, value: rates[i]!, unit: 'calls/s' },
        baseline: { label: '1 worker', value: one, unit: 'calls/s' },
        target: {
          on: 'ratio',
          max: count === 2 ? 0.63 : 0.42,
          text: count === 2 ? '<= 0.63x (>= 1.6x one)' : '<= 0.42x (>= 2.4x one)',
        },
      }),
    );
  return rows;
}

/** Calls per second of `count` workers on a batch of 30 calls of the waiting tool at once. */
async function spreadRate(url: string, count: number): Promise<number> {
  const queue = `spread-${count}`;
  const workers: FleetWorker[] = [];
  for (let i = 0; i < count; i++) workers.push(await runWorker([wait], { connection: url, queue }));
  const dispatch = queueTools([wait], { connection: url, queue });
  const n = 30;
  const started = performance.now();
  const events = await lastValueFrom(
    executeBatch(
      Array.from({ length: n }, (_, i) => ({
        tool: dispatch.tools[0]!,
        call: { id: `s${count}-${i}`, args: JSON.stringify({ n: i }) },
      })),
      { maxParallel: n },
    ).pipe(toArray()),
  );
  const seconds = (performance.now() - started) / 1000;
  if (events.filter((e) => e.final && e.error === undefined).length !== n)
    throw new Error('fleet bench: a call failed');
  await dispatch.close();
  await Promise.all(workers.map((worker) => worker.close()));
  return n / seconds;
}
