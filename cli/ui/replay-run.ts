/**
 * A saved run (`agenttool run --json > run.jsonl`) played back for the web front, at the pace it
 * was recorded.
 *
 * @module
 */
import { asyncScheduler, concatMap, defer, from, map, of, timer, type SchedulerLike } from 'rxjs';
import { UsageError } from '../usage-error.js';
import { isRunRecord, type BatchRecord, type RunRecord } from './run-records.js';
import type { RunSource } from './run-source.js';

/**
 * Parses a saved run: JSON Lines, the `batch` record first, then `start` and `event` records whose
 * `index` names one of its jobs and whose `at` never goes back, and at most one `output` record,
 * last. A file without an `output` record (a run that was killed) gets an empty one, so that a
 * replay always ends. Throws a UsageError naming the line of the first problem.
 */
export function parseRun(text: string, source: string): RunRecord[] {
  const records: RunRecord[] = [];
  let jobs = 0;
  let lastAt = 0;
  let ended = false;
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${source}: line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new UsageError(`${where}: not valid JSON: ${(err as Error).message}`);
    }
    if (!isRunRecord(value))
      throw new UsageError(`${where}: not a record of "agenttool run --json"`);
    if (ended) throw new UsageError(`${where}: a record after the "output" record`);
    if (records.length === 0 && value.type !== 'batch')
      throw new UsageError(`${where}: a saved run starts with its "batch" record`);
    if (value.type === 'batch') {
      if (records.length > 0) throw new UsageError(`${where}: a second "batch" record`);
      if (!Array.isArray(value.jobs)) throw new UsageError(`${where}: "jobs" must be an array`);
      jobs = value.jobs.length;
    } else if (value.type === 'output') ended = true;
    else {
      if (!Number.isInteger(value.index) || value.index < 0 || value.index >= jobs)
        throw new UsageError(`${where}: no job ${JSON.stringify(value.index)} in this run`);
      if (typeof value.at !== 'number' || !(value.at >= lastAt))
        throw new UsageError(`${where}: "at" must be a number of ms, never going back`);
      lastAt = value.at;
    }
    records.push(value);
  });
  if (records.length === 0) throw new UsageError(`${source}: empty run`);
  if (!ended) records.push({ type: 'output', items: [] });
  return records;
}

/** How a replay plays. */
export interface ReplayOptions {
  title: string;
  /** Plays this many times faster than recorded (default 1). */
  speed?: number;
  /** Times the records; defaults to rxjs's `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * A saved run as a {@link RunSource}: each run emits the `batch` record at once and every later
 * record `at / speed` ms after the run began, the `output` record with the last timed one.
 */
export function replayRun(records: readonly RunRecord[], options: ReplayOptions): RunSource {
  const batch = records[0] as BatchRecord;
  const speed = options.speed !== undefined && options.speed > 0 ? options.speed : 1;
  const scheduler = options.scheduler ?? asyncScheduler;
  const run = () =>
    defer(() => {
      const began = scheduler.now();
      let due = 0;
      return from(records).pipe(
        concatMap((record) => {
          if ('at' in record) due = record.at / speed;
          const wait = began + due - scheduler.now();
          return wait > 0 ? timer(wait, scheduler).pipe(map(() => record)) : of(record);
        }),
      );
    });
  return { mode: 'replay', title: options.title, batch, run };
}
