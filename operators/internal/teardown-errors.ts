/**
 * Where an error thrown by a teardown the engine runs goes (a tool's, or that of an Observable
 * answer of `approve` or of the elicitor): never into the batch, a timer or a sibling, but to the
 * batch's `onTeardownError`, or to `console.error` in one line when it has none.
 *
 * @module
 */
import { UnsubscriptionError } from 'rxjs';
import { describeThrown, oneLine } from '../../lib/errors.js';
import type { Job } from '../job.js';

/** What unsubscribing threw: rxjs wraps a teardown's throws in an UnsubscriptionError. */
function unwrap(thrown: unknown): unknown {
  return thrown instanceof UnsubscriptionError && thrown.errors.length === 1
    ? thrown.errors[0]
    : thrown;
}

function named(error: unknown): string {
  const text = oneLine(describeThrown(error));
  return error instanceof Error ? `${error.name}: ${text}` : text;
}

/**
 * Reports what the teardown of job `index` threw: to `handler` when given, else to
 * `console.error` as `agenttool: the teardown of call "<id>" (tool "<name>") threw: <error>`.
 * `of` names what was torn down when it was not the tool: `approve's answer` or `the elicitor's
 * answer` (an Observable answer, unsubscribed once it has answered or is no longer awaited), which
 * the line names before the call. A handler that throws is reported the same way, and nothing is
 * thrown from here.
 */
export function reportTeardownError(
  handler: ((error: unknown, job: Job, index: number) => void) | undefined,
  thrown: unknown,
  job: Job,
  index: number,
  of?: string,
): void {
  const error = unwrap(thrown);
  const call = `call ${JSON.stringify(job.call.id)} (tool ${JSON.stringify(job.tool?.name)})`;
  const which = of === undefined ? call : `${of} for ${call}`;
  if (handler !== undefined) {
    try {
      handler(error, job, index);
      return;
    } catch (failure) {
      console.error(
        `agenttool: onTeardownError threw: ${named(failure)}, on the teardown of ${which}, which threw: ${named(error)}`,
      );
      return;
    }
  }
  console.error(`agenttool: the teardown of ${which} threw: ${named(error)}`);
}
