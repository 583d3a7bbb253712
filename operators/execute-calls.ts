import { Observable, Subscription, type Observer, type OperatorFunction } from 'rxjs';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';
import { parallelBound } from './internal/batch-mode.js';
import { Engine } from './internal/engine.js';

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
 * A job's own `signal`, `options.approve` (asked as each job arrives) and `options.elicitor` work
 * as for {@link executeBatch}.
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
 * @param options Bound, serial mode, capacities, recorder, elicitor, approve, onStart, timeout,
 *   signal and scheduler.
 * @return An operator from jobs over time to their progress and final events.
 */
export function executeCalls(options: ExecuteOptions = {}): OperatorFunction<Job, ExecutionEvent> {
  const serial = options.sequential === true || parallelBound(options) === 1;
  return (source) =>
    new Observable<ExecutionEvent>((subscriber) => {
      const engine = new Engine(subscriber, options, undefined, serial);
      // Attached before anything runs, so a consumer that stops early stops the engine at once;
      // the upstream is a subscription of its own, closed with the engine, so a synchronous
      // source stops reading there too.
      subscriber.add(engine);
      engine.run();
      if (!engine.isClosed) {
        const upstream = new Upstream(engine);
        engine.upstream = upstream;
        source.subscribe(upstream);
      }
    });
}

/**
 * The engine's subscriber to the source: an Observer that is a Subscription too, so rxjs uses it
 * as the subscriber itself and a synchronous source sees it closed as soon as the engine is.
 */
class Upstream extends Subscription implements Observer<Job> {
  constructor(private readonly engine: Engine) {
    super();
  }

  next(job: Job): void {
    if (!this.closed) this.engine.arrive(job);
  }

  error(err: unknown): void {
    if (this.closed) return;
    this.unsubscribe();
    this.engine.sourceError(err);
  }

  complete(): void {
    if (this.closed) return;
    this.unsubscribe();
    this.engine.sourceComplete();
  }
}
