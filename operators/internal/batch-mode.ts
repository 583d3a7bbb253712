/**
 * How a batch's options and tools decide its mode: the bound, and whether it is serial.
 *
 * @module
 */
import { checkedCapacity, namedResource, type ResourceName } from '../../lib/contract.js';
import { DEFAULT_MAX_PARALLEL, type ExecuteOptions, type Job } from '../job.js';

/** The bound a batch runs under: the default for anything below 1 or not a number. */
export function parallelBound(options: ExecuteOptions): number {
  const n = options.maxParallel;
  return n !== undefined && n >= 1 ? Math.floor(n) : DEFAULT_MAX_PARALLEL;
}

/**
 * The application's capacities ({@link ExecuteOptions.capacities}) as a map, or undefined for none.
 *
 * @throws RangeError for a value that is not an integer >= 1 or Infinity, naming its key.
 */
export function capacitiesOf(options: ExecuteOptions): Map<string, number> | undefined {
  const capacities = options.capacities;
  if (capacities === undefined) return undefined;
  const byKey = new Map<string, number>();
  for (const [key, capacity] of Object.entries(capacities))
    byKey.set(key, checkedCapacity(capacity, `capacities[${JSON.stringify(key)}]`));
  return byKey;
}

/** The longest delay a timer can wait (2^31 - 1 ms, about 24.8 days); Node fires longer ones at once. */
export const MAX_TIMEOUT = 2 ** 31 - 1;

/**
 * The per-call timeout a batch runs under, in ms, 0 for none: none for anything not a positive
 * finite number (undefined, 0, negative, NaN, Infinity); at most {@link MAX_TIMEOUT}.
 */
export function timeoutBound(options: ExecuteOptions): number {
  return delayBound(options.timeout);
}

/** An approval's longest wait ({@link ExecuteOptions.approveTimeout}), by the same rule. */
export function approveTimeoutBound(options: ExecuteOptions): number {
  return delayBound(options.approveTimeout);
}

function delayBound(t: number | undefined): number {
  if (t === undefined || !(t > 0) || !Number.isFinite(t)) return 0;
  return Math.min(t, MAX_TIMEOUT);
}

/** Whether a batch of `jobs` runs one call at a time, in job order, ignoring resources (rule 4). */
export function isSerialBatch(jobs: readonly Job[], options: ExecuteOptions): boolean {
  if (options.sequential === true || parallelBound(options) === 1) return true;
  for (let i = 0; i < jobs.length; i++) if (jobs[i].tool?.sequential === true) return true;
  return false;
}

/**
 * What `job`'s call names, as the engine names it: "" for no tool, a sequential one, no resource,
 * or a call whose resource cannot be named from its arguments (it fails without a turn).
 */
export function jobNamed(job: Job): ResourceName {
  const tool = job.tool;
  if (tool === undefined || tool === null || tool.sequential === true) return '';
  try {
    return namedResource(tool, job.call.args);
  } catch {
    return '';
  }
}

/** The resource `job`'s call holds a turn of, as the engine names it ("" for none: see jobNamed). */
export function jobResource(job: Job): string {
  const named = jobNamed(job);
  return typeof named === 'string' ? named : named.key;
}
