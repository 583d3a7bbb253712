/**
 * One call of a batch, from the moment the scheduler admits its job to its final event.
 *
 * A class, and the observer of the tool's observable and the sink of its context at once, so a
 * call costs one object of its own and no closures: under tsx each closure made per call costs
 * more than the whole scheduler.
 *
 * @module
 */
import type { Observer, SchedulerAction, SchedulerLike, Subscription } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  Elicitor,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { CallContext, type ProgressSink } from '../../lib/context.js';
import { describeThrown, NoToolError, TimeoutError, ToolPanicError } from '../../lib/errors.js';
import type { Recorder } from '../../lib/records.js';
import type { Job } from '../job.js';
import type { Fifo } from './run-queues.js';

/** What a call reports to, and the per-batch settings it reads. */
export interface RunHost {
  readonly recorder: Recorder | undefined;
  readonly elicitor: Elicitor | undefined;
  readonly onStart: ((job: Job, index: number) => void | Promise<void>) | undefined;
  /** Milliseconds, or 0 for none. */
  readonly timeout: number;
  readonly scheduler: SchedulerLike;
  progress(run: CallRun, result: ToolResult): void;
  /** The call's tool asked a question (answer undefined), or it was answered. */
  question(run: CallRun, request: ElicitRequest, answer: ElicitResult | undefined): void;
  /** The call has ended by itself: exactly one of `result` and `error` is set. */
  end(run: CallRun, result: ToolResult | undefined, error: Error | undefined): void;
  /** Unsubscribing the call's tool threw: the call's outcome stands, this only reports it. */
  teardownError(run: CallRun, thrown: unknown): void;
}

/**
 * Per-resource state: whether a call of the resource holds its turn (running, or in the heap
 * waiting for a slot), and the calls admitted behind it, in job order.
 */
export interface Chain {
  busy: boolean;
  readonly queue: Fifo<CallRun>;
}

const WAITING = 0;
const STARTING = 1; // has a slot; onStart runs or is pending
const RUNNING = 2; // the tool is subscribed
const ENDED = 3; // final reached, cancelled, or timed out: nothing more is read or emitted

function fireTimeout(this: SchedulerAction<CallRun>, run?: CallRun): void {
  run?.timedOut();
}

/** A thrown value as an Error, for failures that are not the tool's (onStart's). */
function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(describeThrown(value), { cause: value });
}

/** The state of one call. Fields are public to the scheduler, which links and queues runs. */
export class CallRun implements Observer<ToolEvent>, ProgressSink {
  readonly host: RunHost;
  readonly job: Job;
  readonly index: number;
  /** The chain the call holds while it runs, or undefined for a call without a resource. */
  readonly chain: Chain | undefined;
  /** A sequential call of `executeCalls`: runs alone, and nothing after it starts before it ends. */
  readonly barrier: boolean;
  /** The running list, for cancelling every running call without a registry. */
  prevRunning: CallRun | undefined = undefined;
  nextRunning: CallRun | undefined = undefined;
  private state = WAITING;
  private context: CallContext | undefined = undefined;
  private subscription: Subscription | undefined = undefined;
  private timer: Subscription | undefined = undefined;

  constructor(host: RunHost, job: Job, index: number, chain: Chain | undefined, barrier: boolean) {
    this.host = host;
    this.job = job;
    this.index = index;
    this.chain = chain;
    this.barrier = barrier;
  }

  /** Runs onStart, then the tool. The slot is the caller's to count. */
  start(): void {
    this.state = STARTING;
    const onStart = this.host.onStart;
    if (onStart === undefined) return this.subscribeTool();
    let pending: void | Promise<void>;
    let then: unknown;
    try {
      pending = onStart(this.job, this.index);
      // Reading `then` may run a getter that throws: that refuses this call, like a throw.
      then = pending === undefined || pending === null ? undefined : pending.then;
    } catch (err) {
      return this.end(undefined, asError(err));
    }
    if (typeof then === 'function') {
      // Promise callbacks need closures; this path is taken only by hosts that wait per call.
      // Promise.resolve adopts any thenable, and turns a `then` that throws into a rejection.
      Promise.resolve(pending).then(
        () => this.subscribeTool(),
        (err: unknown) => this.end(undefined, asError(err)),
      );
    } else {
      this.subscribeTool();
    }
  }

  private subscribeTool(): void {
    if (this.state !== STARTING) return; // cancelled while onStart ran
    this.state = RUNNING;
    const { tool, call } = this.job;
    // A job with no tool (a lookup that missed) fails like a call of a missing tool.
    if (tool === undefined || tool === null) return this.end(undefined, new NoToolError(call.id));
    const host = this.host;
    const context = new CallContext(call, {
      sink: this,
      recorder: host.recorder,
      elicitor: host.elicitor,
    });
    this.context = context;
    let subscription: Subscription;
    try {
      subscription = tool.execute(call, context).subscribe(this);
    } catch (err) {
      return this.end(undefined, new ToolPanicError(tool.name, err));
    }
    // A tool that emits its final inside subscribe ends before the subscription exists: drop it
    // now, so a tool that emits its final and never completes still has its teardown run.
    if (this.state === ENDED) return this.unsubscribeTool(subscription);
    this.subscription = subscription;
    const timeout = this.host.timeout;
    if (timeout > 0) this.timer = this.host.scheduler.schedule(fireTimeout, timeout, this);
  }

  next(event: ToolEvent): void {
    if (this.state !== RUNNING) return;
    if (event.final) this.end(event.result, undefined);
    else this.host.progress(this, event.result);
  }

  error(err: unknown): void {
    if (this.state !== RUNNING) return;
    this.end(undefined, err instanceof Error ? err : new ToolPanicError(this.job.tool.name, err));
  }

  complete(): void {
    if (this.state !== RUNNING) return;
    const name = this.job.tool.name;
    this.end(undefined, new ToolPanicError(name, undefined, 'completed without a final event'));
  }

  /** Progress from `context.progress(...)`; the context drops it once the call has ended. */
  progress(result: ToolResult): void {
    if (this.state === RUNNING) this.host.progress(this, result);
  }

  /** A question from `context.elicit(...)`, asked or answered, shown while the call runs. */
  question(request: ElicitRequest, answer: ElicitResult | undefined): void {
    if (this.state === RUNNING) this.host.question(this, request, answer);
  }

  /** Called by the scheduler's timer once the timeout has passed. */
  timedOut(): void {
    if (this.state !== RUNNING) return;
    const error = new TimeoutError(this.host.timeout);
    this.context?.cancel(error);
    this.end(undefined, error);
  }

  /** Whether the call has ended: final reached, cancelled, aborted or timed out. */
  get ended(): boolean {
    return this.state === ENDED;
  }

  /**
   * Ends the call on its job's own signal. A waiting call is only marked ended (it never starts)
   * and false is returned: the host, which holds it in a queue, reports it. A started call is
   * cancelled with `error` (its open questions answered cancel, its signal aborted, its tool
   * unsubscribed) and ends through `host.end`, as if it had ended by itself; true is returned.
   */
  abort(error: Error): boolean {
    if (this.state === ENDED) return true;
    if (this.state === WAITING) {
      this.state = ENDED;
      return false;
    }
    this.context?.cancel(error);
    this.end(undefined, error);
    return true;
  }

  /**
   * Stops the call without reporting to the host, which reports the cancellation itself: aborts
   * the call's signal (before unsubscribing, so the tool's teardown sees it aborted) and
   * unsubscribes the tool. A call whose onStart is pending never subscribes its tool.
   */
  cancel(reason: Error): void {
    if (this.state === ENDED) return;
    this.state = ENDED;
    this.context?.cancel(reason);
    this.release();
  }

  /** Ends the call by itself: the tool is unsubscribed before its final is reported. */
  private end(result: ToolResult | undefined, error: Error | undefined): void {
    if (this.state === ENDED) return;
    // An open question is answered (cancel) and shown so before the final; the consumer told of
    // it may have ended the call meanwhile.
    if (this.context?.asking === true) this.context.finish();
    if (this.state === ENDED) return;
    this.state = ENDED;
    this.context?.finish();
    this.release();
    this.host.end(this, result, error);
  }

  private release(): void {
    const timer = this.timer;
    const subscription = this.subscription;
    this.timer = undefined;
    this.subscription = undefined;
    timer?.unsubscribe();
    if (subscription !== undefined) this.unsubscribeTool(subscription);
  }

  /**
   * Unsubscribes the tool. What its teardown throws goes to the host's report: the call's final
   * stands (its result, or the error it was cut with), and the caller goes on with its other
   * calls, so a faulty teardown never reaches a timer, the batch or a sibling.
   */
  private unsubscribeTool(subscription: Subscription): void {
    try {
      subscription.unsubscribe();
    } catch (err) {
      this.host.teardownError(this, err);
    }
  }
}
