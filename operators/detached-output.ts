import type { Job } from './job.js';

/**
 * What the model reads for a detached call in the turn it was asked for: the `result` of the
 * call's `detached` event, and so its function_call_output. One line that says the call runs on
 * and that its result comes later, in the words of {@link detachedResultItem}'s heading.
 *
 * ```
 * call "c1" (build_report) started and runs in the background; its result will be reported when it finishes
 * ```
 *
 * @param job The detached job.
 * @return The line.
 */
export function detachedOutput(job: Job): string {
  const name = job.tool.name;
  return `call "${job.call.id}" (${name}) started and runs in the background; its result will be reported when it finishes`;
}
