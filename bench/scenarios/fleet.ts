/**
 * Scenario 10, the worker fleet on BullMQ (Debian's redis-server started for the run; the
 * scenario says it was not measured where redis-server is missing): what a call costs through
 * `queueTools` and `runWorker` over the same call sent with BullMQ by hand (`queue.add`, then
 * `job.waitUntilFinished`, a Worker running the same function), calls one after another in
 * interleaved rounds; and the throughput of one, two and three workers (one call at a time each)
 * for a tool that waits 100 ms, a batch of 30 calls at once.
 *
 * @module
 */
import { Queue, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { queueTools, runWorker, type FleetWorker } from '../../adapters/redis/index.js';
import { tool } from '../../lib/tool.js';
import { executeBatch } from '../../operators/execute-batch.js';
import { findRedis, startRedis } from '../../test/support/redis.js';
import { interleave, type Variant } from '../harness.js';
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

export async function fleetScenario(scale: Scale): Promise<Row[]> {
  const scenario = '10 worker fleet';
  if (findRedis() === undefined)
    return [
      row({
        scenario,
        name: 'a call through the fleet over BullMQ by hand',
        ours: { label: 'queueTools', value: 0, unit: 'ns/call' },
        note: 'not measured: redis-server is not installed (apt-get install redis-server)',
      }),
    ];
  const redis = await startRedis();
  const url = redis.url;
  const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
  const rows: Row[] = [];
  try {
    // Overhead: our fleet against BullMQ used directly, the same function behind both.
    const calls = Math.max(50, Math.round(300 * scale.size));
    const ours = await runWorker([upper], { connection: url, queue: 'ours' });
    const fleet = queueTools([upper], { connection: url, queue: 'ours' });
    const byHand = new Queue('by-hand', { connection: connection as ConnectionOptions });
    const byHandEvents = new QueueEvents('by-hand', {
      connection: connection as ConnectionOptions,
    });
    await byHandEvents.waitUntilReady();
    // The same function, as a BullMQ processor.
    const handWorker = new Worker(
      'by-hand',
      async (job) => (job.data as { text: string }).text.toUpperCase(),
      { connection: connection as ConnectionOptions },
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
    rows.push(
      row({
        scenario,
        name: `a call (add, run, result) one after another, ${calls} calls`,
        ours: { label: 'queueTools + runWorker', value: fleetTime!.median, unit: 'ns/call' },
        baseline: { label: 'BullMQ by hand', value: handTime!.median, unit: 'ns/call' },
        target: { on: 'ratio', max: 1.5, text: '<= 1.5x' },
        note: 'ours also checks the arguments, streams progress and listens for cancellation',
      }),
    );
    await Promise.all([
      ours.close(),
      fleet.close(),
      byHand.close(),
      byHandEvents.close(),
      handWorker.close(),
    ]);

    // Throughput: one, two and three workers, a waiting tool, 30 calls at once.
    const rates: number[] = [];
    for (const count of [1, 2, 3]) {
      const queue = `spread-${count}`;
      const workers: FleetWorker[] = [];
      for (let i = 0; i < count; i++)
        workers.push(await runWorker([wait], { connection: url, queue }));
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
      rates.push(n / seconds);
      await dispatch.close();
      await Promise.all(workers.map((worker) => worker.close()));
    }
    const one = rates[0]!;
    rows.push(
      row({
        scenario,
        name: '1 worker, 30 calls of a 100 ms tool at once: throughput',
        ours: { label: '1 worker', value: one, unit: 'calls/s' },
      }),
    );
    for (const [i, count] of [
      [1, 2],
      [2, 3],
    ] as const)
      rows.push(
        row({
          scenario,
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
  } finally {
    await redis.stop();
  }
  return rows;
}
