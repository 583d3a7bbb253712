import { Observable, type OperatorFunction } from 'rxjs';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';
import { parallelBound } from './internal/batch-mode.js';
import { Engine } from './internal/scheduler-internals.js';

/**
 * Runs jobs as they arrive, each as soon as the rules allow, and emits their progress and final
 * events as they happen: {@link executeBatch} as an operator.
 *
 * ```
 *   source      a-s-b|               s: a sequential tool
 *   a.execute   ------A|
 *   s.execute         --S|           s waits for every earlier call to end, then runs alone
 *   b.execute           -B|          b arrived while s waited: it waits until s ends
 *
 *               source.pipe(executeCalls())
 *
 *   events      ------a-s(b|)        a, s, b: the final event of each
 * ```
 *
 * Made for a model that is still streaming its function calls: a call starts on arrival when a
 * slot is free and its resource's earlier calls have ended. `index` is the arrival order. The
 * rules of {@link executeBatch} hold (one final per job, the bound, resources, the slot policy),
 * with one difference: a sequential tool does not make the whole stream serial, it is a barrier.
 * It starts once every call that arrived before it has ended, runs alone, and every call arriving
 * after it waits until it ends. `sequential: true` or `maxParallel: 1` still runs every call one
 * at a time in arrival order.
 *
 * The output completes once the source has completed and the last final event is out. A source
 * error cancels the running calls (their signals abort, their tools are unsubscribed) and is passed
 * on, with no final event for the unfinished jobs. Aborting `options.signal` stops reading the
 * source, completes every unfinished job with a CancelledError final event in arrival order, and
 * completes; a signal aborted before subscription subscribes nothing.
 *
 * Warning: unsubscribing cancels every running call and emits nothing for the unfinished jobs.
 *
 * ## Example
 *
 * ```ts
 * const calls$ = modelStream$.pipe(
 *   filter((item) => item.type === 'function_call' && item.status === 'completed'),
 *   map((item) => jobsFromItems([item], toolSet)[0]),
 * );
 * calls$.pipe(executeCalls({ maxParallel: 4, signal })).subscribe(render);
 * ```
 *
 * @see {@link executeBatch} for a batch known in full.
 * @param options Bound, serial mode, recorder, onStart, timeout, signal and scheduler.
 * @return An operator from jobs over time to their progress and final events.
 */
export function executeCalls(options: ExecuteOptions = {}): OperatorFunction<Job, ExecutionEvent> {
  const serial = options.sequential === true || parallelBound(options) === 1;
  return (source) =>
    new Observable<ExecutionEvent>((subscriber) => {
      const engine = new Engine(subscriber, options, undefined, serial);
      engine.run();
      if (!engine.isClosed) {
        const upstream = source.subscribe({
          next: (job) => engine.arrive(job),
          error: (err: unknown) => engine.sourceError(err),
          complete: () => engine.sourceComplete(),
        });
        // A synchronous source may have ended the engine (an abort) before this line.
        if (engine.isClosed) upstream.unsubscribe();
        else engine.upstream = upstream;
      }
      return () => engine.dispose();
    });
}
