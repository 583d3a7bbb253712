import type { FunctionCallOutputItem, ToolOutput } from '../lib/open-responses.js';
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
  return eachOutput('toOutputItems', jobs, settled, (job, output) => ({
    type: 'function_call_output',
    call_id: job.call.id,
    output,
  }));
}

/**
 * What the model reads of each job of a settled batch, in job order, made into the result
 * message of a format by `make`: the result's output, or `Error: <message>` for a failure
 * (`failed` true). Throws a RangeError naming `caller` when `settled` does not match `jobs`.
 * Shared by {@link toOutputItems} and the Chat Completions and Anthropic formats.
 */
export function eachOutput<T>(
  caller: string,
  jobs: readonly Job[],
  settled: readonly SettledResult[],
  make: (job: Job, output: ToolOutput, failed: boolean) => T,
): T[] {
  if (settled.length !== jobs.length)
    throw new RangeError(`${caller}: ${jobs.length} jobs but ${settled.length} results`);
  return jobs.map((job, i) => {
    const entry = settled[i]!;
    return entry.error !== undefined
      ? make(job, errorResult(entry.error).output, true)
      : make(job, entry.result.output, false);
  });
}
