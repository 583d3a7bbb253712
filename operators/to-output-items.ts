import type { FunctionCallOutputItem } from '../lib/open-responses.js';
import { errorResult } from '../lib/result.js';
import type { Job, SettledResult } from './job.js';

/**
 * Builds the function_call_output items of a settled batch, in the model's order.
 *
 * ```
 *   jobs      [call r1, call r2]
 *   settled   [{ result: { output: "42" } }, { error: Error("disk full") }]
 *
 *             toOutputItems(jobs, settled)
 *
 *   items     [{ type: "function_call_output", call_id: "r1", output: "42" },
 *              { type: "function_call_output", call_id: "r2", output: "Error: disk full" }]
 * ```
 *
 * Item `i` answers `jobs[i]`, whatever order the calls completed in. A result's output is sent as
 * it is (its `details` never reach the model); an error becomes `Error: <message>`, with the
 * prefix added once: a message that already starts with `Error: ` is kept as it is. A stack never
 * reaches the model.
 *
 * ## Example
 *
 * ```ts
 * const settled = await batchResults(jobs);
 * request.input.push(...response.output, ...toOutputItems(jobs, settled));
 * ```
 *
 * @see {@link batchResults} for `settled`.
 * @see {@link jobsFromItems} for `jobs`.
 * @param jobs The batch, as run.
 * @param settled One entry per job, in job order, as {@link batchResults} resolves.
 * @return One function_call_output item per job, in job order.
 */
export function toOutputItems(
  jobs: readonly Job[],
  settled: readonly SettledResult[],
): FunctionCallOutputItem[] {
  if (settled.length !== jobs.length) {
    throw new RangeError(`toOutputItems: ${jobs.length} jobs but ${settled.length} results`);
  }
  return jobs.map((job, i) => {
    const entry = settled[i];
    const output = 'error' in entry ? errorResult(entry.error).output : entry.result.output;
    return { type: 'function_call_output', call_id: job.call.id, output };
  });
}
