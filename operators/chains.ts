import type { ExecuteOptions, Job } from './job.js';
import { capacitiesOf, isSerialBatch, jobNamed } from './internal/batch-mode.js';

/**
 * Tells which jobs of a batch run one after another: one chain of job indices per resource, in
 * order of first index; a job with no resource is a chain of its own; a serial batch is one chain.
 *
 * ```
 *   jobs      0 (fs)   1   2 (shell)   3 (fs)   4 (shell)
 *
 *             chains(jobs)
 *
 *   chains    [[0, 3], [1], [2, 4]]
 *
 *             chains(jobs, { sequential: true })
 *
 *   chains    [[0, 1, 2, 3, 4]]
 * ```
 *
 * A tool whose `resource` is a function of the arguments puts each job on the chain its call's
 * arguments name (`write {path: "a"}` and `write {path: "a"}` on one chain, `write {path: "b"}`
 * on another); a job whose arguments name none, or fail to (they do not parse, do not validate,
 * or the function throws), is a chain of its own: that call fails without a turn.
 *
 * The chains are what {@link executeBatch} would run with these options: within a chain, a call
 * starts only after the one before it has ended, in job order; calls of different chains may run
 * alongside, up to `maxParallel`. A counted resource's chain (`{ key, capacity }`, or
 * `options.capacities`) is its calls in the order they start, up to `capacity` of them at once.
 * It runs nothing. An empty batch has no chains.
 *
 * @throws RangeError for `options.capacities` that cannot be, as the batch would fail.
 *
 * ## Example
 *
 * ```ts
 * for (const chain of chains(jobs)) if (chain.length > 1) note(`calls ${chain} run in turn`);
 * ```
 *
 * @see {@link executeBatch} for the rules the chains describe.
 * @param jobs The batch.
 * @param options Only `sequential`, `maxParallel` and `capacities` matter here.
 * @return The chains, each a list of job indices in order.
 */
export function chains(jobs: readonly Job[], options: ExecuteOptions = {}): number[][] {
  return resourceChains(jobs, options).map(({ indices }) => indices);
}

/** A chain of {@link chains} with the capacity it runs under (1 for a job alone, or serial). */
export interface ResourceChain {
  readonly indices: number[];
  readonly capacity: number;
}

/**
 * {@link chains} with each chain's capacity: the application's `capacities` for the resource,
 * else what the chain's first call states, as the engine opens an idle resource. For views.
 */
export function resourceChains(
  jobs: readonly Job[],
  options: ExecuteOptions = {},
): ResourceChain[] {
  const given = capacitiesOf(options); // checked first, as the batch checks them
  if (jobs.length === 0) return [];
  if (isSerialBatch(jobs, options)) return [{ indices: jobs.map((_, i) => i), capacity: 1 }];
  const out: ResourceChain[] = [];
  const byResource = new Map<string, number[]>();
  jobs.forEach((job, i) => {
    const named = jobNamed(job);
    const resource = typeof named === 'string' ? named : named.key;
    // No tool, or no resource named: a chain of its own.
    if (resource === '') return void out.push({ indices: [i], capacity: 1 });
    const chain = byResource.get(resource);
    if (chain !== undefined) return void chain.push(i);
    const fresh = [i];
    byResource.set(resource, fresh);
    const stated = typeof named === 'string' ? 1 : named.capacity;
    out.push({ indices: fresh, capacity: given?.get(resource) ?? stated });
  });
  return out;
}
