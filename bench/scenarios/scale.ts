/**
 * Scenario 3, scheduling at scale: batches of 10k, 100k and 1M calls, 30% of them on one of 10
 * resources, the tools answering on a microtask so that resources really contend and calls really
 * wait in their chains. Two measures:
 *
 * - Time per call must not grow with the batch. Measured fairly: the same jobs
 *   run as one batch and as batches of 10k, one after another, over the same few tool values, so
 *   the heap, the caches and the collector see the same work on both sides and only the batch
 *   size differs.
 * - Heap per queued call: the settled heap while a batch is in flight (right after it starts, and
 *   again halfway), minus the heap before it, over the calls not yet finished. Reported for the
 *   engine alone and with the job values themselves (the caller's objects) counted in.
 *
 * @module
 */
import { from, type Observable } from 'rxjs';
import { executeBatch, type Job } from '../../index.js';
import type { Tool, ToolEvent } from '../../lib/contract.js';
import { hasGc, interleave, settledHeap } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const EVENT: ToolEvent = { final: true, result: { output: 'ok' } };

/** A tool whose every call answers on a microtask: one shared observable, nothing per call. */
function microtaskTool(name: string, resource?: string): Tool {
  const answer: Observable<ToolEvent> = from(Promise.resolve(EVENT));
  const built: Tool = { name, description: 'Answers on a microtask.', execute: () => answer };
  return resource === undefined ? built : { ...built, resource };
}

/** `count` jobs, 30% of them on one of 10 resources, from a fixed seed. */
export function scaleJobs(count: number): Job[] {
  const free = microtaskTool('free');
  const chains = Array.from({ length: 10 }, (_, r) => microtaskTool(`chain_${r}`, `r${r}`));
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const jobs: Job[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const tool = next() < 0.3 ? chains[Math.floor(next() * 10)] : free;
    jobs[i] = { tool, call: { id: `call_${i}`, args: '' } };
  }
  return jobs;
}

/** Runs one batch to its end; resolves with the number of final events. */
function runBatch(jobs: readonly Job[], onFinal?: (finals: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let finals = 0;
    executeBatch(jobs, { maxParallel: 8 }).subscribe({
      next(event) {
        if (event.final) {
          finals++;
          onFinal?.(finals);
        }
      },
      error: reject,
      complete() {
        if (finals !== jobs.length) reject(new Error(`${finals} finals for ${jobs.length} jobs`));
        else resolve(finals);
      },
    });
  });
}

async function runInSlices(slices: readonly Job[][]): Promise<void> {
  for (const slice of slices) await runBatch(slice);
}

function slicesOf(jobs: readonly Job[], size: number): Job[][] {
  const slices: Job[][] = [];
  for (let i = 0; i < jobs.length; i += size) slices.push(jobs.slice(i, i + size));
  return slices;
}

/** Heap per unfinished call at the start of a batch and halfway through it, the larger. */
async function heapPerQueuedCall(count: number): Promise<{ engine: number; withJobs: number }> {
  const empty = settledHeap();
  let jobs: Job[] | undefined = scaleJobs(count);
  const before = settledHeap();
  let engine = 0;
  const sample = (unfinished: number) => {
    engine = Math.max(engine, (settledHeap() - before) / unfinished);
  };
  const half = count >> 1;
  let withJobs = 0;
  const done = runBatch(jobs, (finals) => {
    if (finals === half) sample(count - finals);
  });
  // The batch has started its first calls; nothing has finished (the tools answer on a microtask).
  const started = settledHeap();
  engine = Math.max(engine, (started - before) / count);
  withJobs = (started - empty) / count;
  await done;
  jobs = undefined;
  return { engine, withJobs };
}

/** Runs scenario 3 and returns its rows. */
export async function scaleScenario(scale: Scale): Promise<Row[]> {
  const rows: Row[] = [];
  const scenario = '3 scale';
  const slice = Math.round(10_000 * scale.size);
  for (const [count, rounds] of [
    [Math.round(100_000 * scale.size), 9],
    [Math.round(1_000_000 * scale.size), 3],
  ] as const) {
    const jobs = scaleJobs(count);
    const slices = slicesOf(jobs, slice);
    const [whole, sliced] = await interleave(
      [
        {
          name: `one batch of ${count / 1000}k`,
          calls: count,
          run: () => runBatch(jobs).then(() => undefined),
        },
        {
          name: `${slices.length} batches of ${slice / 1000}k`,
          calls: count,
          run: () => runInSlices(slices),
        },
      ],
      { rounds: scale.rounds(rounds) },
    );
    rows.push(
      row({
        scenario,
        name: `time per call, ${count / 1000}k vs ${slice / 1000}k batches`,
        ours: { label: whole.name, value: whole.median, unit: 'ns/call' },
        baseline: { label: sliced.name, value: sliced.median, unit: 'ns/call' },
        target: { on: 'ratio', max: 1.1, text: '<= 1.1x' },
      }),
    );
  }
  if (!hasGc) {
    rows.push(
      row({
        scenario,
        name: 'heap per queued call (needs --expose-gc)',
        ours: { label: 'not measured', value: NaN, unit: 'B/call' },
      }),
    );
    return rows;
  }
  for (const count of [Math.round(100_000 * scale.size), Math.round(1_000_000 * scale.size)]) {
    const heap = await heapPerQueuedCall(count);
    rows.push(
      row({
        scenario,
        name: `heap per queued call, ${count / 1000}k batch, job values included`,
        ours: { label: 'heap', value: heap.withJobs, unit: 'B/call' },
        target: { on: 'ours', max: 150, text: '< 150 B' },
      }),
      row({
        scenario,
        name: `heap per queued call, ${count / 1000}k batch, engine alone`,
        ours: { label: 'heap', value: heap.engine, unit: 'B/call' },
        target: { on: 'ours', max: 150, text: '< 150 B' },
      }),
    );
  }
  return rows;
}
