/**
 * A batch of one call, run without the engine's turn-taking: the commonest batch an agent runs
 * (the model asked for one tool) pays for the call, one owner object and its events, not for
 * slots, chains, a heap or a running list it would never use.
 *
 * It takes only the batches where those have nothing to decide: one job, without its own signal,
 * without `approve`, whose tool names no resource or a fixed one by string
 * (a resource function, or a counted resource object, can fail the call before it runs: the
 * engine says how). What such a batch emits is the engine's, event for event: the call's progress,
 * questions and detached event, its final, then completion (a batch `signal` that aborts gives the
 * call a CancelledError final, as the engine's abort does); onStart, the timeout, the recorder,
 * the elicitor, teardown reports and spans are the call's own (call-run.ts) or read as the engine
 * reads them. marbles/engine-vs-model.test.ts runs batches of one through it against the pipeline
 * model, and marbles/solo-run.test.ts runs each kind of call through it and through the engine.
 *
 * Registered by the Node entry (index.ts); a browser bundle, which does not, runs every batch
 * through the engine and stays smaller.
 *
 * @module
 */
import type { Subscriber, Unsubscribable } from 'rxjs';
import type { ElicitRequest, ElicitResult, ToolResult } from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../job.js';
import { BatchSettings } from './batch-settings.js';
import type { BatchSpans } from '../../lib/telemetry/call-spans.js';
import { CallRun, type RunOwner } from './call-run.js';
import { detachedEvent, finalEvent, progressEvent, questionEvent } from './call-events.js';
import { spansFor } from '../../lib/telemetry/span-hook.js';

/** Whether a batch of `jobs` under `options` is one the solo run takes (see the module). */
export function runsAlone(jobs: readonly Job[], options: ExecuteOptions): boolean {
  if (jobs.length !== 1 || options.approve !== undefined) return false;
  const job = jobs[0] as Job | null | undefined;
  if (typeof job !== 'object' || job === null || job.signal !== undefined) return false;
  const tool = job.tool as Job['tool'] | null | undefined;
  if (tool === undefined || tool === null) return true;
  const resource = tool.resource;
  return resource === undefined || typeof resource === 'string';
}

/** The owner of a batch's one call: its events, its end, its cancellation. */
export class SoloRun implements RunOwner, Unsubscribable, EventListenerObject {
  declare private readonly destination: Subscriber<ExecutionEvent>;
  declare private readonly job: Job;
  /** The batch's options, resolved once, as the engine resolves them. */
  declare readonly settings: BatchSettings;
  declare readonly spans: BatchSpans<Job> | undefined;
  /** Approvals add to calls; a solo run has none. */
  declare readonly reviews: undefined;
  declare private run: CallRun | undefined;
  declare private closed: boolean;
  /** The batch's signal: its abort cancels the call, as the engine's does. */
  declare private readonly signal: AbortSignal | undefined;

  constructor(destination: Subscriber<ExecutionEvent>, options: ExecuteOptions, job: Job) {
    // The engine refuses a capacity that cannot be before anything runs; so does this.
    this.settings = new BatchSettings(options);
    this.destination = destination;
    this.job = job;
    this.reviews = undefined;
    this.run = undefined;
    this.closed = false;
    this.spans = spansFor(options);
    this.signal = options.signal;
  }

  /** Starts the call; its subscriber holds this from then on, as its teardown. */
  start(): void {
    const signal = this.signal;
    if (signal !== undefined) {
      if (signal.aborted) return this.handleEvent();
      signal.addEventListener('abort', this);
    }
    const run = new CallRun(this, this.job, 0, undefined, false);
    this.run = run;
    const spans = this.spans;
    if (spans === undefined) run.start();
    else spans.start(0, this.job, run);
  }

  progress(run: CallRun, result: ToolResult): void {
    if (!this.closed) this.emit(progressEvent(run, result));
  }

  question(run: CallRun, request: ElicitRequest, answer: ElicitResult | undefined): void {
    if (this.closed) return;
    this.spans?.question(run.index, request, answer);
    this.emit(questionEvent(run, request, answer));
  }

  detached(run: CallRun): void {
    if (!this.closed) this.emit(detachedEvent(run));
  }

  /**
   * Emits a progress event; a consumer that unsubscribed in its handler (take(1), say) cancels
   * the call now. While the call starts, the subscriber does not hold this yet (execute-batch.ts):
   * the subscriber's state says so.
   */
  private emit(event: ExecutionEvent): void {
    const destination = this.destination;
    destination.next(event);
    if (destination.closed) this.unsubscribe();
  }

  end(run: CallRun, result: ToolResult | undefined, error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this);
    const spans = this.spans;
    spans?.ended(run.index, run.job, result, error);
    const destination = this.destination;
    destination.next(finalEvent(run, result, error));
    spans?.closeAll();
    // Nothing, when the consumer unsubscribed in its handler.
    destination.complete();
  }

  /** The subscriber's teardown: a call still running is cancelled. */
  unsubscribe(): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this);
    this.run?.cancel(new CancelledError());
    this.spans?.closeAll();
  }

  /**
   * The batch's signal aborted (engine.ts, `abort`): the call, running or not started, ends with a
   * CancelledError final event, its span ended with that error, then the batch completes.
   */
  handleEvent(): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this);
    const error = new CancelledError();
    const { job, spans, run } = this;
    spans?.ended(0, job, undefined, error);
    run?.cancel(error);
    const destination = this.destination;
    destination.next({ index: 0, callId: job.call.id, final: true, error });
    spans?.closeAll();
    destination.complete();
  }
}
