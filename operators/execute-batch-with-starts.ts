import { isObservable, Observable, tap } from 'rxjs';
import type { BatchStateInput, CallApproval, CallStart } from './batch-state.js';
import { executeBatch } from './execute-batch.js';
import type { Approval, ExecuteOptions, Job } from './job.js';

function isApproval(answer: unknown): boolean {
  return answer === true || (answer as { approved?: unknown } | null)?.approved === true;
}

/**
 * {@link executeBatch}, with a {@link CallStart} in the stream each time a call starts: what
 * {@link batchState} needs to show a call leave `waiting` before its first event.
 *
 * ```
 *   a.execute   --p--(A|)
 *   b.execute        -----(B|)     maxParallel: 1, so b starts when a ends
 *
 *               executeBatchWithStarts([a, b], { maxParallel: 1 })
 *
 *   stream      s-p--(aS)-(b|)     s, S: the starts of a and b; p: a's progress; a, b: finals
 * ```
 *
 * The events and rules are those of `executeBatch`; a start comes before every event of its call.
 * With `options.approve`, a call whose answer is not given at once gets a {@link CallApproval}
 * (`approving: true`) when asked and another (`approving: false`) once approved, so
 * {@link batchState} shows it `approving` meanwhile.
 * `options.onStart` still runs: the start is emitted once it returns (once its Promise resolves),
 * and not at all when it refuses the call. Cold, like `executeBatch`.
 *
 * ## Example
 *
 * ```ts
 * executeBatchWithStarts(jobs, { maxParallel: 4 })
 *   .pipe(batchState(jobs, { maxParallel: 4 }))
 *   .subscribe((calls) => render(calls));
 * ```
 *
 * @param jobs The calls to run.
 * @param options As for {@link executeBatch}.
 * @return A cold Observable of the batch's events and starts.
 */
export function executeBatchWithStarts(
  jobs: readonly Job[],
  options: ExecuteOptions = {},
): Observable<BatchStateInput> {
  return new Observable<BatchStateInput>((subscriber) => {
    const started = (index: number): void => {
      const start: CallStart = { index, callId: jobs[index]!.call.id, started: true };
      subscriber.next(start);
    };
    const approving = (index: number, pending: boolean): void => {
      const input: CallApproval = { index, callId: jobs[index]!.call.id, approving: pending };
      subscriber.next(input);
    };
    const { onStart, approve } = options;
    return executeBatch(jobs, {
      ...options,
      approve:
        approve === undefined
          ? undefined
          : (job, index) => {
              const answer = approve(job, index);
              const given = (value: Approval) => {
                if (isApproval(value)) approving(index, false);
              };
              if (isObservable(answer)) {
                approving(index, true);
                return answer.pipe(tap(given));
              }
              if (typeof (answer as { then?: unknown } | null)?.then === 'function') {
                approving(index, true);
                return Promise.resolve(answer).then((value) => {
                  given(value);
                  return value;
                });
              }
              return answer;
            },
      onStart: (job, index) => {
        if (onStart === undefined) return started(index);
        const answer = onStart(job, index);
        if (answer !== undefined && typeof answer.then === 'function')
          return answer.then(() => started(index));
        started(index);
      },
    }).subscribe(subscriber);
  });
}
