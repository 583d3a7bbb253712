/**
 * The core shared by `executeBatch` and `executeCalls`: per-call slots, resource chains, the slot
 * policy of rule 6, cancellation and completion.
 *
 * What it computes is a pipeline of stock operators, `groupBy` by resource, `mergeMap` over the
 * chains, `concatMap` within one, and a slot pool for the shared bound: marbles/pipeline-model.ts
 * is that pipeline, and marbles/engine-vs-model.test.ts requires both to give the same events
 * and tool subscriptions, frame for frame, on thousands of random batches.
 *
 * Why it is fused into this class rather than built from those operators: cost (docs/engine.md,
 * "The pipeline to read it by", gives the measures). Here each structure is O(1) amortised per
 * call. The engine is in two parts along the model's own seam: turns.ts decides whose turn it is
 * (the cursor, the heap, the chains, the barrier, the approvals parked), and this class owns the
 * slots, the events, the end, the abort and the watches:
 * - A synchronous tool ends inside `subscribe`, inside `pump`: `draining` turns the nested `pump`
 *   into a no-op and the outer loop goes on, so 100k synchronous calls use constant stack. No call
 *   starts while an event is being emitted either: what a consumer's handler sets off is taken up
 *   once it returns, as the pipeline's `queueScheduler` steps do.
 * - A job's own signal and its pending approval live in maps made by the first job that has one
 *   (job-watch.ts, job-approval.ts): a batch without them pays a property read per job and an
 *   `undefined` check per call.
 *
 * @module
 */
import type { Subscriber, Unsubscribable } from 'rxjs';
import type { ElicitRequest, ElicitResult, ToolResult } from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import type { CallRun } from './call-run.js';
import { Turns, type TurnsHost } from './turns.js';
import { BatchSettings } from './batch-settings.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../job.js';
import { RunningList } from './run-queues.js';
import { abortError, JobWatch, type WatchOwner } from './job-watch.js';
import {
  askApproval,
  PendingApproval,
  type Review,
  type ApprovalOwner,
  type ApprovalHost,
} from './job-approval.js';
import { NotApprovedError } from '../../lib/errors.js';
import type { BatchSpans } from '../../lib/telemetry/call-spans.js';
import { spansFor } from '../../lib/telemetry/span-hook.js';
import { detachedEvent, finalEvent, progressEvent, questionEvent } from './call-events.js';

/**
 * Runs jobs for one subscriber. `executeBatch` hands it the whole array; `executeCalls` an empty
 * one it appends to as jobs arrive. Implements EventListenerObject so the abort listener is the
 * engine itself rather than a closure.
 */
export class Engine
  implements TurnsHost, WatchOwner, ApprovalOwner, ApprovalHost, EventListenerObject, Unsubscribable
{
  // Declared, and set in the constructor in this order, rather than initialised as class fields,
  // as CallConsumer's are: no run could tell the two apart in time (BENCHMARKS.md, The engine's
  // floors), and this form is the smaller in a browser bundle (about 30 B min+gzip with turns.ts).
  declare private readonly destination: Subscriber<ExecutionEvent>;
  /** The batch's options, resolved once; its calls and approvals read them here. */
  declare readonly settings: BatchSettings;
  /** The batch's spans, when the application traces (call-spans.ts); undefined otherwise. */
  declare readonly spans: BatchSpans<Job> | undefined;
  declare private readonly approve: ExecuteOptions['approve'];
  /** The source of `executeCalls`, unsubscribed when the engine closes. */
  declare upstream: Unsubscribable | undefined;

  declare private readonly limit: number;
  declare private readonly signal: AbortSignal | undefined;
  declare private readonly turns: Turns;
  declare private sourceDone: boolean;
  /** Calls holding a slot now. */
  declare running: number;
  declare private readonly runningCalls: RunningList<CallRun>;
  declare private draining: boolean; // in the pump loop, or emitting: a nested pump is deferred
  declare private deferred: boolean; // a pump was asked for while draining
  declare private closed: boolean;
  /** The watches of unfinished jobs that carry a signal, by index; made by the first one. */
  declare private watches: Map<number, JobWatch> | undefined;
  /** What approvals added to their calls (a note, edited arguments), by index; made by the first. */
  declare reviews: Map<number, Review> | undefined;

  constructor(
    destination: Subscriber<ExecutionEvent>,
    options: ExecuteOptions,
    jobs: readonly Job[] | undefined,
    serial: boolean,
  ) {
    // Throws for a capacity that cannot be: the batch fails at once.
    const settings = new BatchSettings(options);
    this.destination = destination;
    this.settings = settings;
    this.approve = settings.approve;
    this.upstream = undefined;
    this.limit = serial ? 1 : settings.maxParallel;
    this.signal = settings.signal;
    this.running = 0;
    this.runningCalls = new RunningList<CallRun>();
    this.draining = false;
    this.deferred = false;
    this.closed = false;
    this.watches = undefined;
    this.reviews = undefined;
    this.sourceDone = jobs !== undefined;
    this.turns = new Turns(this, jobs, serial, settings.approve !== undefined, settings.capacities);
    this.spans = spansFor(options);
  }

  /** Whether the engine has completed, failed, been aborted or been unsubscribed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts what can start; cancels everything at once when the signal is already aborted. */
  run(): void {
    const signal = this.signal;
    if (signal !== undefined) {
      if (signal.aborted) return this.abort();
      signal.addEventListener('abort', this);
    }
    // executeBatch: the jobs' own signals are watched from the start, so that a job past the
    // cursor ends when its signal aborts, not when the cursor reaches it.
    const jobs = this.turns.jobs;
    for (let i = 0; i < jobs.length && !this.closed; i++) {
      const jobSignal = jobs[i].signal;
      if (jobSignal !== undefined) this.watch(i, jobs[i], jobSignal);
    }
    // Every job's approval is asked at once, in job order.
    if (this.approve !== undefined)
      for (let i = 0; i < jobs.length && !this.closed; i++) this.ask(i, jobs[i]);
    this.pump();
  }

  /** Asks job `index`'s approval, unless its own signal has already ended it. */
  private ask(index: number, job: Job): void {
    // A job whose signal has aborted has had its final.
    if (job.signal?.aborted === true) return;
    const approve = this.approve as NonNullable<ExecuteOptions['approve']>;
    const spans = this.spans;
    spans?.asked(index, job);
    const answer = askApproval(approve, job, index, this);
    if (this.closed) {
      if (answer instanceof PendingApproval) answer.cancel();
      return;
    }
    const outcome = answer instanceof PendingApproval ? answer.attach(this) : answer;
    if (outcome === undefined) {
      (this.turns.approvals ??= new Map()).set(index, answer as PendingApproval);
      return;
    }
    const refused = outcome instanceof NotApprovedError;
    spans?.answered(index, !refused);
    if (refused) this.endUnstarted(index, job, undefined, outcome);
    else if (outcome !== true) (this.reviews ??= new Map()).set(index, outcome);
  }

  approved(pending: PendingApproval, review: Review | undefined): void {
    if (this.closed) return;
    this.spans?.answered(pending.index, true);
    if (review !== undefined) (this.reviews ??= new Map()).set(pending.index, review);
    this.turns.approved(pending);
    this.pump();
  }

  refused(pending: PendingApproval, error: NotApprovedError): void {
    if (this.closed) return;
    this.spans?.answered(pending.index, false);
    this.endUnstarted(pending.index, pending.job, pending.run, error);
    this.pump();
  }

  /**
   * Ends a job that has not started, with its final event: past the cursor, the cursor will pass
   * it by; waiting in a chain or the heap, it stays there ended and is passed by when taken; parked
   * for its approval, its chain's turn passes on now. Its pending approval and its signal's watch,
   * if any, are dropped.
   * Returns false when `run` had started: its end is its own.
   */
  private endUnstarted(index: number, job: Job, run: CallRun | undefined, error: Error): boolean {
    const callId = job.call.id;
    if (this.watches !== undefined) this.unwatch(index);
    const approvals = this.turns.approvals;
    const pending = approvals?.get(index);
    if (pending !== undefined) {
      approvals!.delete(index);
      pending.cancel();
    }
    const event: ExecutionEvent =
      error instanceof NotApprovedError && error.note !== undefined
        ? { index, callId, final: true, error, note: error.note }
        : { index, callId, final: true, error };
    if (run === undefined) {
      this.turns.skip(index);
      this.spans?.ended(index, job, undefined, error);
      this.emit(event);
      return true;
    }
    if (run.abort(error)) return false;
    this.turns.unstarted(run, pending?.parked === true);
    this.spans?.ended(index, job, undefined, error);
    this.emit(event);
    return true;
  }

  /** Watches job `index`'s signal; one already aborted ends the job now, with its final event. */
  private watch(index: number, job: Job, signal: AbortSignal): void {
    if (signal.aborted) {
      this.turns.skip(index);
      const error = abortError(signal.reason);
      this.spans?.ended(index, job, undefined, error);
      this.emit({ index, callId: job.call.id, final: true, error });
      return;
    }
    this.turns.watched = true;
    (this.watches ??= new Map()).set(index, new JobWatch(this, index, job, signal));
  }

  /** A run was made for a job whose signal may be watched: the watch cancels it from now on. */
  link(run: CallRun): void {
    const watch = this.watches?.get(run.index);
    if (watch !== undefined) watch.run = run;
  }

  /**
   * A job's own signal aborted. Past the cursor, the cursor will pass it by; waiting in a chain
   * or the heap, it stays there ended and is passed by when taken; started, its run is cancelled
   * and ends through {@link Engine.end}. Then whatever can start starts.
   */
  abortJob(watch: JobWatch): void {
    if (this.closed) return;
    this.watches?.delete(watch.index);
    // A started run ends through end(); any other ends here.
    this.endUnstarted(watch.index, watch.job, watch.run, abortError(watch.signal.reason));
    this.pump();
  }

  /** executeCalls: a job arrived. */
  arrive(job: Job): void {
    if (this.closed) return;
    const index = this.turns.arrive(job);
    const signal = job.signal;
    // What these emit may push more jobs (and compact the array): the job is passed, not looked up.
    if (signal !== undefined) this.watch(index, job, signal);
    if (this.approve !== undefined && !this.closed) this.ask(index, job);
    this.pump();
  }

  /** executeCalls: the source completed; the engine completes after the last final. */
  sourceComplete(): void {
    this.sourceDone = true;
    this.pump();
  }

  /** executeCalls: the source failed; running calls are cancelled and the error passed on. */
  sourceError(err: unknown): void {
    if (this.closed) return;
    this.dispose();
    this.destination.error(err);
  }

  handleEvent(): void {
    this.abort();
  }

  progress(run: CallRun, result: ToolResult): void {
    if (!this.closed) this.emit(progressEvent(run, result));
  }

  /** A detached call is under way: the model may be answered for it now (job.ts, `detached`). */
  detached(run: CallRun): void {
    if (!this.closed) this.emit(detachedEvent(run));
  }

  question(run: CallRun, question: ElicitRequest, answer: ElicitResult | undefined): void {
    if (this.closed) return;
    this.spans?.question(run.index, question, answer);
    this.emit(questionEvent(run, question, answer));
  }

  /**
   * Emits one event. No call starts while a consumer's handler runs: a job it pushes (or a slot
   * its event frees) is taken up once the handler has returned, so events never nest.
   */
  private emit(event: ExecutionEvent): void {
    if (this.draining) return this.destination.next(event);
    this.draining = true;
    this.destination.next(event);
    this.draining = false;
    if (this.deferred) this.pump();
  }

  end(run: CallRun, result: ToolResult | undefined, error: Error | undefined): void {
    this.runningCalls.remove(run);
    this.running--;
    this.turns.ended(run);
    if (this.watches !== undefined) this.unwatch(run.index);
    if (this.closed) return;
    this.spans?.ended(run.index, run.job, result, error);
    const event = finalEvent(run, result, error);
    // What an approval added (a note, edited arguments) goes on the final event as it is; a
    // batch without approvals reads one undefined.
    const review = this.reviews?.get(run.index);
    if (review !== undefined) this.reviews!.delete(run.index);
    this.emit(review === undefined ? event : { ...event, ...review });
    this.pump();
  }

  /** Job `index` has ended: its signal is no longer watched. */
  private unwatch(index: number): void {
    const watch = this.watches?.get(index);
    if (watch === undefined) return;
    watch.stop();
    this.watches?.delete(index);
  }

  /** The subscriber's teardown: {@link Engine.dispose}. */
  unsubscribe(): void {
    this.dispose();
  }

  /** Unsubscription, completion or error: cancels what runs, starts nothing more. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this);
    if (this.watches !== undefined) {
      for (const watch of this.watches.values()) watch.stop();
      this.watches.clear();
    }
    const approvals = this.turns.approvals;
    if (approvals !== undefined) for (const pending of approvals.values()) pending.cancel();
    this.upstream?.unsubscribe();
    for (const run of this.runningCalls.takeAll()) run.cancel(new CancelledError());
    this.spans?.closeAll();
  }

  /**
   * The signal aborted: every unfinished job completes with a CancelledError, in job order (the
   * running and admitted ones first, since they all precede the cursor), then the batch completes.
   */
  private abort(): void {
    if (this.closed) return;
    const error = new CancelledError();
    const turns = this.turns;
    let admitted = turns.drainAdmitted(this.runningCalls.takeAll());
    // Calls ended before their turn are still queued, and have had their final.
    if (turns.mayHoldEnded) admitted = admitted.filter((run) => !run.ended);
    const spans = this.spans;
    if (spans !== undefined) {
      for (const run of admitted) spans.ended(run.index, run.job, undefined, error);
      turns.forEachUnadmitted((index, job) => spans.ended(index, job, undefined, error));
    }
    this.dispose();
    for (const run of admitted) run.cancel(error);
    admitted.sort((a, b) => a.index - b.index);
    const destination = this.destination;
    for (const run of admitted) {
      destination.next({ index: run.index, callId: run.job.call.id, final: true, error });
    }
    turns.forEachUnadmitted((index, job) =>
      destination.next({ index, callId: job.call.id, final: true, error }),
    );
    destination.complete();
  }

  /** Starts calls while slots are free; completes once nothing is left. */
  private pump(): void {
    if (this.closed) return;
    if (this.draining) {
      this.deferred = true; // the loop or the emit in progress pumps again
      return;
    }
    this.draining = true;
    this.deferred = false;
    const turns = this.turns;
    while (!this.closed && this.running < this.limit) {
      const run = turns.take();
      if (run === undefined) break;
      this.running++;
      this.runningCalls.add(run);
      if (this.spans === undefined) run.start();
      else this.spans.start(run.index, run.job, run);
    }
    this.draining = false;
    if (!this.closed && this.sourceDone && this.running === 0 && turns.idle) {
      this.dispose();
      this.destination.complete();
    }
  }
}
