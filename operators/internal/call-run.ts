/**
 * One call of a batch, from the moment the scheduler admits its job to its final event.
 *
 * A class, and the observer of the tool's observable and the sink of its context at once: a
 * call's whole state is one object of its own, with no closure made per call.
 *
 * @module
 */
import type { SchedulerAction } from 'rxjs';
import type * as consumer from '../../lib/call-consumer.js';
import { CallConsumer } from '../../lib/call-consumer.js';
import type { ElicitRequest, ElicitResult, ToolResult } from '../../lib/contract.js';
import { CallContext } from '../../lib/context.js';
import { describeThrown, NoToolError, TimeoutError } from '../../lib/errors.js';
import type { Job } from '../job.js';
import type { BatchSettings } from './batch-settings.js';
import type { BatchSpans } from '../../lib/telemetry/call-spans.js';
import type { Review } from './job-approval.js';
import type { Fifo } from './run-queues.js';

/** What a call reports to (the engine that runs it), and the per-batch settings it reads. */
export interface RunOwner {
  /**
   * The batch's settings: its calls' context options, onStart, timeout and scheduler, and where
   * what a teardown throws is reported.
   */
  readonly settings: BatchSettings;
  /** The batch's spans, when the application traces; the tool gets the call they name. */
  readonly spans: BatchSpans<Job> | undefined;
  /** What approvals added to calls (job-approval.ts), by index, once one has. */
  readonly reviews: ReadonlyMap<number, Review> | undefined;
  progress(run: CallRun, result: ToolResult): void;
  /** The call's tool asked a question (answer undefined), or it was answered. */
  question(run: CallRun, request: ElicitRequest, answer: ElicitResult | undefined): void;
  /** The call's tool is subscribed and still running, and the call detaches (`Job.detach`). */
  detached(run: CallRun): void;
  /** The call has ended by itself: exactly one of `result` and `error` is set. */
  end(run: CallRun, result: ToolResult | undefined, error: Error | undefined): void;
}

/**
 * Per-resource state: how many calls of the resource hold a turn (running, in the heap waiting
 * for a slot, or parked for an approval), how many may (1 for a plain resource), and the calls
 * admitted behind them, in job order. A call waits in `queue` only while `holders` is `capacity`.
 */
export interface Chain {
  holders: number;
  /** Set by the call that finds the resource idle (no holder): see `Turns.take`. */
  capacity: number;
  readonly queue: Fifo<CallRun>;
  /**
   * The resource, when the chain is dropped as it idles (a resource named from a call's
   * arguments); undefined for a tool's fixed resource, whose chain is kept for its next call.
   */
  readonly key: string | undefined;
}

// CallConsumer's phases, copied into module constants: reading another module's bindings on every
// call costs the engine (on the compiled bench, scenario 1's raw calls ran at 0.79x and 0.83x a
// mergeMap with these, 0.86x and 0.90x reading the imported bindings, three runs each).
const PENDING: typeof consumer.PENDING = 0;
const RUNNING: typeof consumer.RUNNING = 1;
const ENDED: typeof consumer.ENDED = 2;

function fireTimeout(this: SchedulerAction<CallRun>, run?: CallRun): void {
  run?.timedOut();
}

/** A thrown value as an Error, for failures that are not the tool's (onStart's). */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(describeThrown(value), { cause: value });
}

/**
 * The state of one call. Fields are public to the scheduler, which links and queues runs. How the
 * tool's observable is read (one final, contract breaks, teardown errors) is {@link CallConsumer}'s.
 */
export class CallRun extends CallConsumer {
  declare readonly owner: RunOwner;
  declare readonly job: Job;
  declare readonly index: number;
  /** The chain the call holds while it runs, or undefined for a call without a resource. */
  declare readonly chain: Chain | undefined;
  /** A sequential call of `executeCalls`: runs alone, and nothing after it starts before it ends. */
  declare readonly barrier: boolean;
  /** The running list, for cancelling every running call without a registry. */
  declare prevRunning: CallRun | undefined;
  declare nextRunning: CallRun | undefined;
  /** Whether the scheduler has started it (onStart, then the tool). */
  declare private started: boolean;
  /**
   * Why the call fails without running its tool (its resource could not be named from its
   * arguments): set by the scheduler before the call starts, it is the call's final error.
   */
  declare failure: Error | undefined;

  constructor(
    owner: RunOwner,
    job: Job,
    index: number,
    chain: Chain | undefined,
    barrier: boolean,
  ) {
    super();
    this.init();
    this.failure = undefined;
    this.owner = owner;
    this.job = job;
    this.index = index;
    this.chain = chain;
    this.barrier = barrier;
    this.started = false;
    this.prevRunning = undefined;
    this.nextRunning = undefined;
  }

  /** Runs onStart, then the tool. The slot is the caller's to count. */
  start(): void {
    this.started = true;
    const onStart = this.owner.settings.onStart;
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
      // Promise callbacks need closures; this path is taken only by callers whose onStart waits.
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
    if (this.phase !== PENDING) return; // cancelled while onStart ran
    const job = this.job;
    const tool = job.tool;
    const owner = this.owner;
    const spans = owner.spans;
    let call = spans === undefined ? job.call : spans.callOf(this.index, job);
    // Arguments a person corrected when approving the call (job-approval.ts) are the ones it runs with.
    const edited = owner.reviews?.get(this.index)?.editedArgs;
    if (edited !== undefined) call = { ...call, args: edited };
    // A job with no tool (a lookup that missed) fails like a call of a missing tool.
    if (tool === undefined || tool === null) return this.end(undefined, new NoToolError(call.id));
    if (this.failure !== undefined) return this.end(undefined, this.failure);
    const settings = owner.settings;
    const context = new CallContext(call, settings.contextOptions, this);
    if (!this.consume(tool, call, context)) return;
    const timeout = settings.timeout;
    if (timeout > 0) this.timer = settings.scheduler.schedule(fireTimeout, timeout, this);
    // The job's choice wins over the tool's; a batch without detached calls reads two undefineds.
    if ((job.detach ?? tool.detach) === true) owner.detached(this);
  }

  /**
   * A question from `context.elicit(...)`, asked or answered, shown on the call: while it runs, and
   * when the call ends by itself with its question open (the cancel answer then comes before the
   * final; a cancelled batch shows nothing more).
   */
  question(request: ElicitRequest, answer: ElicitResult | undefined): void {
    if (this.phase !== PENDING) this.owner.question(this, request, answer);
  }

  /** What unsubscribing an elicitor's Observable answer to the call's question threw. */
  answerTeardownError(thrown: unknown): void {
    this.owner.settings.answerTeardownError(this, thrown);
  }

  /** Called by the scheduler's timer once the timeout has passed. */
  timedOut(): void {
    if (this.phase !== RUNNING) return;
    const error = new TimeoutError(this.owner.settings.timeout);
    this.context?.cancel(error);
    this.end(undefined, error);
  }

  /** Whether the call has ended: final reached, cancelled, aborted or timed out. */
  get ended(): boolean {
    return this.phase === ENDED;
  }

  /**
   * Ends the call on its job's own signal. A call not started yet is only marked ended (it never
   * starts) and false is returned: the owner, which holds it in a queue, reports it. A started call
   * (in onStart, or running) is cancelled with `error` (its open questions answered cancel, its
   * signal aborted, its tool unsubscribed) and ends through `owner.end`, as if it had ended by
   * itself; true is returned.
   */
  abort(error: Error): boolean {
    if (this.phase === ENDED) return true;
    if (!this.started) {
      this.phase = ENDED;
      return false;
    }
    this.context?.cancel(error);
    this.end(undefined, error);
    return true;
  }

  protected onProgress(result: ToolResult): void {
    this.owner.progress(this, result);
  }

  protected onEnd(result: ToolResult | undefined, error: Error | undefined): void {
    this.owner.end(this, result, error);
  }

  /**
   * What the tool's teardown threw goes to the owner's report: the call's final stands (its result,
   * or the error it was cut with), and the caller goes on with its other calls.
   */
  protected onTeardownError(thrown: unknown): void {
    this.owner.settings.teardownError(this, thrown);
  }
}
