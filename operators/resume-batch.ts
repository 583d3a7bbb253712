/**
 * The resumed form of `executeBatch`: finals decided from an earlier run's records, and the rest
 * of the batch run by the engine with its indices kept.
 *
 * @module
 */
import { Observable } from 'rxjs';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';
import { isSerialBatch } from './internal/batch-mode.js';
import type { ToolCall } from '../lib/contract.js';
import { describeThrown, oneLine } from '../lib/errors.js';
import type { Recorder, ToolRecord } from '../lib/records.js';
import type { ResumePlan } from './resume-log.js';

/**
 * Runs a planned resume. The decided finals come first, at subscription, in job order; then the
 * jobs that run go through `execute` (the engine) as a batch of their own, in job order, serial
 * when the whole batch was, and every event they emit (and every `onStart` and `approve`) carries its index in
 * the whole batch. A job the log held only another call for under its id gets its mismatch record
 * written through the recorder first, at subscription.
 */
export function resumeBatch(
  jobs: readonly Job[],
  plan: ResumePlan,
  options: ExecuteOptions,
  execute: (jobs: readonly Job[], options: ExecuteOptions) => Observable<ExecutionEvent>,
): Observable<ExecutionEvent> {
  const { indices } = plan;
  const { onStart, approve } = options;
  const inner: ExecuteOptions = {
    ...options,
    sequential: options.sequential === true || isSerialBatch(jobs, options),
    onStart: onStart === undefined ? undefined : (job, index) => onStart(job, indices[index]),
    approve: approve === undefined ? undefined : (job, index) => approve(job, indices[index]),
  };
  return new Observable<ExecutionEvent>((subscriber) => {
    const { recorder } = options;
    if (recorder !== undefined)
      plan.mismatched.forEach((record, index) => writeMismatch(recorder, record, jobs[index].call));
    plan.decided.forEach((decided, index) => {
      if (decided === undefined || subscriber.closed) return;
      const callId = jobs[index].call.id;
      subscriber.next({ index, callId, final: true, ...decided } as ExecutionEvent);
    });
    if (subscriber.closed) return undefined;
    return execute(plan.run, inner).subscribe({
      next: (event) => subscriber.next({ ...event, index: indices[event.index] }),
      error: (err: unknown) => subscriber.error(err),
      complete: () => subscriber.complete(),
    });
  });
}

/**
 * Writes the record of a fresh call whose id the log held for another call. It is written before
 * the call starts and not waited for; a recorder that fails says so in one console.error line,
 * and the call runs all the same (as a step whose record failed does).
 */
function writeMismatch(recorder: Recorder, record: ToolRecord, call: ToolCall): void {
  new Promise<void>((resolve) => resolve(recorder(record, call))).catch((err: unknown) => {
    console.error(
      `agenttool: the resume mismatch of call ${JSON.stringify(call.id)} was not recorded (${oneLine(describeThrown(err))})`,
    );
  });
}
