/**
 * The resumed form of `executeBatch`: finals decided from an earlier run's records, and the rest
 * of the batch run by the engine with its indices kept.
 *
 * @module
 */
import { Observable } from 'rxjs';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';
import { isSerialBatch } from './internal/batch-mode.js';
import type { ResumePlan } from './resume-log.js';

/**
 * Runs a planned resume. The decided finals come first, at subscription, in job order; then the
 * jobs that run go through `execute` (the engine) as a batch of their own, in job order, serial
 * when the whole batch was, and every event they emit (and every `onStart` and `approve`) carries its index in
 * the whole batch.
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
