import type { ExecutionEvent, Job, SettledResult } from './job.js';
import { settledOf } from './settled-of.js';
import { executeBatch } from './execute-batch.js';
import type { BatchOptions } from './resume-log.js';

/**
 * Runs a batch and resolves to how each job settled, in job order: `{ result }` or `{ error }`.
 *
 * ```
 *   a.execute   ----A|
 *   b.execute   -B|
 *   events      -b--(a|)
 *
 *               await batchResults([a, b])
 *
 *   resolves    [{ result: A }, { result: B }]    in job order, once the last job has settled
 * ```
 *
 * The convenience over {@link executeBatch} when progress is not needed: progress is dropped, and
 * the rules and options are the same. It never rejects because of a tool, since a tool's failure
 * is the `error` of its entry. Aborting `options.signal` settles every unfinished job with a
 * CancelledError, so the promise still resolves, with one entry per job. It waits for detached
 * calls (`job.detach`) to end too: {@link turnItems} answers the turn without them.
 *
 * ## Example
 *
 * ```ts
 * const jobs = jobsFromItems(response.output, toolSet);
 * const settled = await batchResults(jobs, { signal });
 * input.push(...toOutputItems(jobs, settled));
 * ```
 *
 * @see {@link executeBatch} for the events as they happen.
 * @see {@link toOutputItems} to send the results back to the model.
 * @param jobs The calls to run.
 * @param options As for {@link executeBatch}, `resume` included.
 * @return A Promise of one settled entry per job, in job order.
 */
export function batchResults(
  jobs: readonly Job[],
  options: BatchOptions = {},
): Promise<SettledResult[]> {
  return new Promise<SettledResult[]>((resolve, reject) => {
    const settled = new Array<SettledResult>(jobs.length);
    executeBatch(jobs, options).subscribe({
      next(event: ExecutionEvent) {
        if (!event.final) return;
        settled[event.index] = settledOf(event);
      },
      error: reject,
      complete: () => resolve(settled),
    });
  });
}
