import { Observable, type OperatorFunction } from 'rxjs';
import type { FunctionCallOutputItem, InputMessageItem } from '../lib/open-responses.js';
import { detachedResultItem } from './detached-result-item.js';
import type { ExecutionEvent, Job, SettledResult } from './job.js';
import { settledOf } from './settled-of.js';
import { toOutputItems } from './to-output-items.js';

/**
 * Turns a batch's events into what the next requests send: the turn's function_call_output items
 * as soon as every job has its final event or has detached, then a message item for each
 * detached call as it ends.
 *
 * ```
 *   a.execute   --A|                   a: an ordinary call
 *   b.execute   -----------B|          b: detaches once started
 *   events      d-a--------(b|)        d: b's detached event; a, b: the final events
 *
 *               executeBatch([a, b]).pipe(turnItems([a, b]))
 *
 *   items       --t--------(m|)        t: [a's output, b's "started" line]; m: [b's message item]
 * ```
 *
 * The first array is the turn: one function_call_output per job, in job order, as
 * {@link toOutputItems} makes them; a detached call's output is {@link DETACHED_OUTPUT},
 * unless its final event came first, in which case the model reads its result as for any call.
 * Each later array holds one {@link detachedResultItem}, for a detached call's final event. A
 * batch without detached calls gives the turn once, after its last final, and nothing more.
 * Completes and errors with the source; unsubscribing unsubscribes the source, which cancels the
 * calls still running, detached ones included.
 *
 * ## Example
 *
 * ```ts
 * executeBatch(jobs).pipe(turnItems(jobs)).subscribe((items) => {
 *   input.push(...items); // the turn first: the loop can ask the model again now
 *   if (!asking) void nextTurn();
 * });
 * ```
 *
 * @see {@link detachedResultItem} for a detached call's message item alone.
 * @param jobs The batch, as run (`index` picks a job).
 * @return An operator from a batch's events to the input items of its turn, then of its
 *   detached calls' results.
 */
export function turnItems(
  jobs: readonly Job[],
): OperatorFunction<ExecutionEvent, (FunctionCallOutputItem | InputMessageItem)[]> {
  return (source) =>
    new Observable<(FunctionCallOutputItem | InputMessageItem)[]>((subscriber) => {
      const settled = new Array<SettledResult | undefined>(jobs.length);
      // The jobs answered with the detached line in the turn: their finals become messages.
      const noted = new Array<boolean>(jobs.length).fill(false);
      let open = jobs.length;
      let sent = false;
      return source.subscribe({
        next(event) {
          const index = event.index;
          if (event.final) {
            if (sent) {
              if (noted[index] === true) subscriber.next([detachedResultItem(event, jobs)]);
              return;
            }
            if (settled[index] === undefined) open--;
            else noted[index] = false; // ended before the turn was sent: its result goes in it
            settled[index] = settledOf(event);
          } else if (event.detached === true && !sent && settled[index] === undefined) {
            open--;
            noted[index] = true;
            settled[index] = { result: event.result };
          }
          if (!sent && open === 0) {
            sent = true;
            subscriber.next(toOutputItems(jobs, settled as SettledResult[]));
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
