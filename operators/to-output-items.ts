import type { FunctionCallOutputItem, ToolOutput } from '../lib/open-responses.js';
import { errorResult } from '../lib/result.js';
import type { Job, Reviewed, SettledResult } from './job.js';

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
 * reaches the model. What a person added when approving or refusing the call (`Approval`'s
 * `note` and edited `args`, carried by the settled entry) follows the output, in brackets:
 * `[Note from the person who reviewed this call: ...]`.
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
    const failed = entry.error !== undefined;
    const output = failed ? errorResult(entry.error).output : entry.result.output;
    return make(job, withReview(output, entry), failed);
  });
}

/**
 * `output` with what a person's answer to `approve` added to the call (see `Approval`), after it:
 * the arguments it ran with when they were edited, then the person's note, each on a line of its
 * own in brackets (a text part of its own after parts), so the model reads both beside the outcome.
 */
export function withReview(output: ToolOutput, review: Reviewed): ToolOutput {
  const lines: string[] = [];
  if (review.editedArgs !== undefined)
    lines.push(
      `[The person who approved this call edited its arguments; it ran with ${review.editedArgs}]`,
    );
  if (review.note !== undefined)
    lines.push(`[Note from the person who reviewed this call: ${review.note}]`);
  if (lines.length === 0) return output;
  const text = lines.join('\n');
  if (typeof output !== 'string') return [...output, { type: 'input_text', text }];
  return output === '' ? text : `${output}\n\n${text}`;
}
