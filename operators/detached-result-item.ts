import type { ContentPart, InputMessageItem, ToolOutput } from '../lib/open-responses.js';
import { errorResult } from '../lib/result.js';
import type { ExecutionEvent, Job } from './job.js';
import { withReview } from './to-output-items.js';

/**
 * The message item that reports a detached call's final event to the model, in a later turn.
 *
 * ```
 *   event     { index: 0, callId: "c1", final: true, result: { output: "report for Q3" } }
 *
 *             detachedResultItem(event, jobs)      jobs[0] is a call of build_report
 *
 *   item      { type: "message", role: "user", content: [
 *               { type: "input_text", text: 'The background call "c1" (build_report) finished: report for Q3' }] }
 * ```
 *
 * The model was told in the call's own turn that it runs in the background (its
 * function_call_output is {@link DETACHED_OUTPUT}), and Open Responses takes one
 * function_call_output per call_id: the result comes as a user message instead. Text output is
 * added to the heading; content parts (an image, a file) follow it as parts. A failure reads
 * `The background call "c1" (build_report) failed: <message>`, its stack never sent.
 *
 * ## Example
 *
 * ```ts
 * executeBatch(jobs).pipe(turnItems(jobs)).subscribe((items) => input.push(...items));
 * // or, by hand, for each final event of a job that had detached:
 * input.push(detachedResultItem(event, jobs));
 * ```
 *
 * @see {@link turnItems} for a turn's items, then these as each detached call ends.
 * @param event The job's final event.
 * @param jobs The batch the event is of (its `index` picks the job and so the tool's name).
 * @return A `message` input item for a later request.
 * @throws TypeError when `event` is not a final event or names no job of `jobs`.
 */
export function detachedResultItem(event: ExecutionEvent, jobs: readonly Job[]): InputMessageItem {
  return { type: 'message', role: 'user', content: detachedResultParts(event, jobs) };
}

/**
 * What {@link detachedResultItem} says, as content parts: the heading with a text output (or
 * the failure's message), then any other parts. Shared with the Chat Completions and Anthropic
 * forms.
 */
export function detachedResultParts(event: ExecutionEvent, jobs: readonly Job[]): ContentPart[] {
  const job = jobs[event.index];
  if (!event.final || job === undefined)
    throw new TypeError(
      `detachedResultItem: event of call "${event.callId}" is not a final event of the batch`,
    );
  const call = `The background call "${job.call.id}" (${job.tool.name})`;
  if (event.error !== undefined) {
    const message = errorResult(event.error).output as string;
    return asParts(withReview(`${call} failed: ${message.slice('Error: '.length)}`, event));
  }
  // What a person added when approving the call (its note, edited arguments) follows, as in
  // toOutputItems.
  const output: ToolOutput = withReview(event.result.output, event);
  if (typeof output === 'string') return [text(`${call} finished: ${output}`)];
  return [text(`${call} finished:`), ...output];
}

function asParts(output: ToolOutput): ContentPart[] {
  return typeof output === 'string' ? [text(output)] : output;
}

function text(value: string): ContentPart {
  return { type: 'input_text', text: value };
}
