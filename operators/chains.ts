import type { ExecuteOptions, Job } from './job.js';
import { isSerialBatch, jobResource } from './internal/batch-mode.js';

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
 * alongside, up to `maxParallel`. It runs nothing. An empty batch has no chains.
 *
 * ## Example
 *
 * ```ts
 * for (const chain of chains(jobs)) if (chain.length > 1) note(`calls ${chain} run in turn`);
 * ```
 *
 * @see {@link executeBatch} for the rules the chains describe.
 * @param jobs The batch.
 * @param options Only `sequential` and `maxParallel` matter here.
 * @return The chains, each a list of job indices in order.
 */
export function chains(jobs: readonly Job[], options: ExecuteOptions = {}): number[][] {
  if (jobs.length === 0) return [];
  if (isSerialBatch(jobs, options)) return [jobs.map((_, i) => i)];
  const out: number[][] = [];
  const byResource = new Map<string, number[]>();
  jobs.forEach((job, i) => {
    const resource = jobResource(job); // no tool, or no resource named: a chain of its own
    if (resource === '') return void out.push([i]);
    const chain = byResource.get(resource);
    if (chain !== undefined) return void chain.push(i);
    const fresh = [i];
    byResource.set(resource, fresh);
    out.push(fresh);
  });
  return out;
}
