import { Observable } from 'rxjs';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';
import { isSerialBatch } from './internal/batch-mode.js';
import { Engine } from './internal/engine.js';
import { resumeBatch } from './resume-batch.js';
import { planResume, type BatchOptions } from './resume-log.js';
import type { runsAlone, SoloRun } from './internal/solo-run.js';

/** What runs a batch of one call without the engine's turn-taking (internal/solo-run.ts). */
export interface SoloRunner {
  readonly runsAlone: typeof runsAlone;
  readonly SoloRun: typeof SoloRun;
}

/**
 * The solo run of a batch of one, once registered: the Node entry registers it (index.ts); a
 * browser bundle, which does not, runs every batch through the engine and stays smaller.
 */
let solo: SoloRunner | undefined;

/** The options of a batch given none. */
const NO_OPTIONS: ExecuteOptions = Object.freeze({});

/** Registers {@link SoloRunner} (undefined: every batch runs through the engine). */
export function registerSoloRun(runner: SoloRunner | undefined): void {
  solo = runner;
}

/**
 * Runs a batch of tool calls, in parallel up to a bound, and emits each call's progress and its
 * one final event as they happen.
 *
 * ```
 *   jobs:       a (resource fs)   b (resource fs)   c
 *   a.execute   --p--A|
 *   b.execute        ---B|            b is subscribed when a ends: same resource
 *   c.execute   -C|
 *
 *               executeBatch([a, b, c])
 *
 *   events      -cp--a--(b|)         p: progress of a; a, b, c: the final event of each
 * ```
 *
 * The observable is cold: each subscription runs the batch anew and shares nothing with another.
 * Every job gets exactly one final event, carrying its `result` or its `error`; its progress comes
 * before it and nothing of the job comes after it. Completions arrive in completion order, not job
 * order: read `index` to put them back in place. The observable completes after the last final
 * event and never errors because of a tool: a tool's failure, a contract break (a ToolPanicError),
 * a timeout or an onStart refusal is a final event with `error`.
 *
 * At most `maxParallel` calls run at once (default 8). Jobs whose tools name the same resource run
 * one after another in job order while the rest run alongside; a tool whose `resource` is a
 * function of the arguments names one per call (writes to one file in turn, to others alongside),
 * and a call it cannot name one for (arguments that do not decode, a function that throws) ends at
 * once with that error, without running its tool or taking a turn. A counted resource
 * (`{ key, capacity }` on the tool, or `options.capacities` by key, which wins) lets up to
 * `capacity` of its calls run at once, still starting in job order; a capacity in `capacities`
 * that is not an integer >= 1 or Infinity fails the batch at subscription with a RangeError
 * (docs/engine.md, Counted resources). A serial batch (`sequential: true`,
 * `maxParallel: 1`, or any sequential tool in it) runs one call at a time in job order and ignores
 * resources. When a slot frees, the earliest job in job order whose turn has come takes it, so the
 * same timings always give the same schedule.
 *
 * With `resume`, the records of an earlier, interrupted run of the same jobs, a job that had
 * finished keeps its final event without running; one that had started and not finished runs again
 * only when its tool's `replay` is `'safe'`, or `'idempotent'` under the same idempotency key, and
 * otherwise ends with a NotReplayedError; the others run as new. The kept and refused finals come
 * first, at subscription, in job order; the jobs that run keep their indices, their order, their
 * chains and the batch's serial mode. A log entry without a string `callId` throws a TypeError
 * here.
 *
 * A call ends at its final event: the engine unsubscribes from the tool then (running its
 * teardown), without waiting for the tool to complete.
 *
 * A call that detaches (`job.detach`, else its tool's `detach`) runs like any other; once its tool
 * is subscribed and still running, a progress event with `detached: true` says so, its result
 * what the model reads for it this turn, and its final event comes when it ends (see
 * {@link turnItems}). A batch without such calls emits no such event.
 *
 * Warning: unsubscribing cancels every running call (each tool's observable is unsubscribed and
 * its signal aborts) and starts nothing more, and emits nothing for the unfinished jobs. To get a
 * CancelledError final event for every unfinished job instead, abort `options.signal`.
 *
 * A person can take part (docs/people.md): a job's own `signal` stops that call
 * alone; `options.approve` is asked before a call takes a slot or its resource turn, and a call
 * waiting for its answer holds no slot; a tool's question (`context.elicit`, answered by
 * `options.elicitor`) appears on its call as an `ExecutionQuestionEvent`, asked then answered,
 * before the call's final event.
 *
 * ## Example
 *
 * ```ts
 * const jobs = jobsFromItems(response.output, toolSet);
 * executeBatch(jobs, { maxParallel: 4, timeout: 30_000 }).subscribe((event) => {
 *   if (event.question !== undefined) showQuestion(event.index, event.question, event.answer);
 *   else if (!event.final) show(event.index, event.result);
 *   else if (event.error) log(event.callId, event.error);
 * });
 * ```
 *
 * @see {@link executeCalls} for jobs that arrive over time.
 * @see {@link batchResults} for the settled results alone, in job order.
 * @see {@link chains} for which jobs run one after another.
 * @param jobs The calls to run; the array is read as the batch runs and must not change meanwhile.
 * @param options Bound, serial mode, capacities, recorder, elicitor, approve, onStart, timeout,
 *   signal, scheduler and resume.
 * @return A cold Observable of the batch's progress and final events.
 */
export function executeBatch(
  jobs: readonly Job[],
  options?: BatchOptions,
): Observable<ExecutionEvent> {
  // One object for every batch given no options, rather than one made per call.
  if (options === undefined) return runBatch(jobs, NO_OPTIONS);
  const resume = options.resume;
  if (resume !== undefined) return resumeBatch(jobs, planResume(jobs, resume), options, runBatch);
  return runBatch(jobs, options);
}

function runBatch(jobs: readonly Job[], options: ExecuteOptions): Observable<ExecutionEvent> {
  return new Observable<ExecutionEvent>((subscriber) => {
    if (solo !== undefined && solo.runsAlone(jobs, options)) {
      const run = new solo.SoloRun(subscriber, options, jobs[0]);
      run.start();
      // The teardown of a call still running; of one that has ended (the subscriber is closed
      // then, and rxjs runs it at once), nothing. A consumer that unsubscribes from its handler
      // while the call starts is seen by the run itself (solo-run.ts).
      return run;
    }
    const engine = new Engine(subscriber, options, jobs, isSerialBatch(jobs, options));
    // Attached before the first call runs: a consumer that stops early (take(1) over synchronous
    // tools) closes the engine from inside the batch, and nothing more starts.
    subscriber.add(engine);
    engine.run();
  });
}
