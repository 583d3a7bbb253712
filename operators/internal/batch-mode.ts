/**
 * How a batch's options and tools decide its mode: the bound, and whether it is serial.
 *
 * @module
 */
import { DEFAULT_MAX_PARALLEL, type ExecuteOptions, type Job } from '../job.js';

/** The bound a batch runs under: the default for anything below 1 or not a number. */
export function parallelBound(options: ExecuteOptions): number {
  const n = options.maxParallel;
  return n !== undefined && n >= 1 ? Math.floor(n) : DEFAULT_MAX_PARALLEL;
}

/** Whether a batch of `jobs` runs one call at a time, in job order, ignoring resources (rule 4). */
export function isSerialBatch(jobs: readonly Job[], options: ExecuteOptions): boolean {
  if (options.sequential === true || parallelBound(options) === 1) return true;
  for (let i = 0; i < jobs.length; i++) if (jobs[i].tool.sequential === true) return true;
  return false;
}
