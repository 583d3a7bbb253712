/**
 * The rules for consuming a tool's observable, written once for everything that runs a call: the
 * engine (operators/internal/call-run.ts) and the MCP server (adapters/mcp-server/served-call.ts).
 *
 * A base class rather than a function taking callbacks: the engine's call is this object, the
 * observer of the tool's observable and the sink of its context at once, so a call is one object
 * with no closures.
 *
 * @module
 */
import {
  Subscription,
  type Observable,
  type Observer,
  type TeardownLogic,
  type Unsubscribable,
} from 'rxjs';
import type { ProgressSink } from './context.js';
import type { CallContext } from './context.js';
import type { Tool, ToolCall, ToolEvent, ToolResult } from './contract.js';
import { describeThrown, oneLine, ToolPanicError } from './errors.js';
import type { DirectRunner } from './direct-run.js';

/** The direct run of `tool()` functions, once the Node entry registers it (lib/direct-run.ts). */
let direct: DirectRunner | undefined;

/** Registers the direct run of `tool()` and `rawTool()` functions (undefined: none). */
export function registerDirectRun(runner: DirectRunner | undefined): void {
  direct = runner;
}

/** Not subscribed yet: the subclass may be waiting (for a slot, for `onStart`). */
export const PENDING = 0;
/** The tool is subscribed (or being subscribed) and its events are read. */
export const RUNNING = 1;
/** Ended by a final, a failure, a contract break or a cancellation: nothing more is read. */
export const ENDED = 2;

/**
 * One call's consumer. What a subclass can rely on:
 * - {@link CallConsumer.consume} subscribes `tool.execute(call, context)`; an `execute` or a
 *   subscribe that throws ends the call with a ToolPanicError. A thenable returned instead (a
 *   hand-written `async execute`) is adopted ({@link CallConsumer.adopt}).
 * - Progress events, and `context.progress(...)` while the call runs, go to `onProgress`.
 * - The first final event ends the call with its result. Whatever the tool does after that (a
 *   second final, progress, an error, completing) is ignored.
 * - An error ends the call with it (a thrown non-Error becomes a ToolPanicError); completing without
 *   a final event ends it with a ToolPanicError "completed without a final event".
 * - Once the call ends, the context it owns is finished (its signal never aborts), the tool is
 *   unsubscribed (for a tool that ends inside `subscribe`, as soon as `subscribe` returns), and
 *   then `onEnd` is called, exactly once, with exactly one of `result` and `error` set.
 * - {@link CallConsumer.cancel} aborts its context's signal, then unsubscribes the tool; `onEnd`
 *   is not called: the canceller reports the cancellation itself.
 * - Unsubscribing never throws out of here: what the tool's teardown throws goes to
 *   `onTeardownError`, and the call's outcome stands.
 */
export abstract class CallConsumer implements Observer<ToolEvent>, ProgressSink {
  // Declared, not initialised here: the class has no constructor of its own, since field
  // initialisers slow the engine, which makes one consumer per call (on the compiled bench,
  // scenario 1 ran at 0.94x a mergeMap on raw calls and 0.98x on typed ones with them, against
  // 0.73x to 0.83x and 0.85x to 0.94x without). Every subclass's constructor sets them first, in
  // this order: see {@link CallConsumer.init}.
  /** {@link PENDING}, {@link RUNNING} or {@link ENDED}. */
  declare protected phase: number;
  /** The context this consumer made for the call, if it made it. */
  declare protected context: CallContext | undefined;
  /** The tool being consumed, once it is. */
  declare protected tool: Tool | undefined;
  /** The tool's subscription (or what follows its function) while it runs. */
  declare protected subscription: Unsubscribable | undefined;
  /** What cuts the call short (a timeout's timer), if anything: let go of when the call ends. */
  declare protected timer: Unsubscribable | undefined;
  /** What the tool's observable gave to run when it is unsubscribed (see {@link CallConsumer.add}). */
  declare private finalizers: Subscription | undefined;

  /** Sets the fields above to a call not consumed yet; the first thing a subclass's constructor does. */
  protected init(): void {
    this.phase = PENDING;
    this.context = undefined;
    this.tool = undefined;
    this.subscription = undefined;
    this.timer = undefined;
    this.finalizers = undefined;
  }

  /** A progress update of the running call. */
  protected abstract onProgress(result: ToolResult): void;
  /** The call has ended by itself: exactly one of `result` and `error` is set. */
  protected abstract onEnd(result: ToolResult | undefined, error: Error | undefined): void;
  /** Unsubscribing the tool threw `thrown` (rxjs may wrap it in an UnsubscriptionError). */
  protected abstract onTeardownError(thrown: unknown): void;

  /**
   * Runs the tool with `context`, which this consumer made (its sink is this consumer): it is
   * finished when the call ends and cancelled by `cancel`. Returns whether the call is still
   * running once `subscribe` has returned. Does nothing once the call has ended.
   */
  protected consume(tool: Tool, call: ToolCall, context: CallContext): boolean {
    if (this.phase !== PENDING) return false;
    this.phase = RUNNING;
    this.tool = tool;
    this.context = context;
    if (direct !== undefined) {
      const running = direct(this, tool, call, context);
      if (running !== undefined) return running;
    }
    let subscription: Unsubscribable;
    let returned: Observable<ToolEvent> | undefined;
    try {
      returned = tool.execute(call, context);
      subscription = returned.subscribe(this);
    } catch (err) {
      if (this.adopt(returned)) return this.phase === RUNNING;
      this.subscribeThrew(err);
      return false;
    }
    // A tool that ends inside subscribe ends before the subscription exists: drop it now, so a
    // tool that emits its final and never completes still has its teardown run.
    return this.hold(subscription);
  }

  /**
   * Keeps the tool's subscription (or what follows a directly run function) to let go of when the
   * call ends; once the call has ended (inside `subscribe`), lets go of it now. Whether it runs.
   */
  hold(subscription: Unsubscribable): boolean {
    if (this.phase === ENDED) {
      this.unsubscribeTool(subscription);
      return false;
    }
    this.subscription = subscription;
    return true;
  }

  // The consumer is the tool's Subscriber as well as its observer: with `closed`, `add`, `remove`
  // and `unsubscribe`, rxjs subscribes it as it is, without a SafeSubscriber around it.

  /** Whether the call has ended: a producer stops emitting then. */
  get closed(): boolean {
    return this.phase === ENDED;
  }

  /**
   * Keeps a finalizer of the tool's observable, run when the call lets go of the tool; once it
   * has, runs it now. Kept in an rxjs Subscription made by the first: an inner subscription that
   * ends by itself leaves it (a tool that subscribes a million inner observables over one call
   * holds only the live ones), and what finalizers throw comes out as rxjs's UnsubscriptionError.
   */
  add(teardown: TeardownLogic): void {
    // The consumer itself, given back as a teardown, is harmless: unsubscribing it unsubscribes
    // the holder, which is closed by then.
    (this.finalizers ??= new Subscription()).add(teardown);
  }

  /**
   * Nothing: rxjs takes a subscription out of the parents it registered it with, which is the
   * Subscription that holds the finalizers, never the consumer.
   */
  remove(): void {}

  /** Runs the finalizers the tool's observable gave, once; any added later run at once. */
  unsubscribe(): void {
    // Closed once unsubscribed (EMPTY is closed from the start): a later add runs at once.
    (this.finalizers ??= Subscription.EMPTY).unsubscribe();
  }

  /**
   * `execute` returned a thenable rather than an observable (a hand-written `async execute`): it
   * is adopted, and returns true. What it resolves to is subscribed as the tool's observable while
   * the call still runs (one that is not an observable ends the call with a ToolPanicError); its
   * rejection ends the call as an observable's error does. Nothing is left unhandled: a settlement
   * after the call's end is ignored. Returns false for anything else, `execute`'s throw included.
   */
  protected adopt(returned: unknown): boolean {
    let then: unknown;
    try {
      const value = returned as { then?: unknown; subscribe?: unknown } | null | undefined;
      if (value === undefined || value === null || typeof value.subscribe === 'function')
        return false;
      then = value.then;
    } catch {
      return false; // a `then` getter that throws: the call's failure is subscribe's TypeError
    }
    if (typeof then !== 'function') return false;
    // Promise.resolve adopts any thenable, and turns a `then` that throws into a rejection.
    Promise.resolve(returned).then(
      (value: unknown) => this.adopted(value),
      (err: unknown) => this.error(err),
    );
    return true;
  }

  /** What an adopted thenable resolved to: subscribed as the tool's observable while running. */
  private adopted(value: unknown): void {
    if (this.phase !== RUNNING) return;
    const observable = value as Observable<ToolEvent> | null | undefined;
    if (typeof observable?.subscribe !== 'function') {
      const got = oneLine(describeThrown(value));
      const reason = `execute's Promise resolved to ${got}, not an Observable`;
      return this.end(undefined, new ToolPanicError(this.toolName(), value, reason));
    }
    let subscription: Unsubscribable;
    try {
      subscription = observable.subscribe(this);
    } catch (err) {
      return this.subscribeThrew(err);
    }
    // The tool may have ended inside subscribe.
    this.hold(subscription);
  }

  /**
   * `execute` or `subscribe` threw: a tool that ended inside subscribe and whose teardown then
   * threw lands here after its end (a teardown error); otherwise the call ends with a
   * ToolPanicError.
   */
  protected subscribeThrew(err: unknown): void {
    if (this.phase === ENDED) this.onTeardownError(err);
    else this.end(undefined, new ToolPanicError(this.toolName(), err));
  }

  next(event: ToolEvent): void {
    if (this.phase !== RUNNING) return;
    if (event.final) this.end(event.result, undefined);
    else this.onProgress(event.result);
  }

  error(err: unknown): void {
    if (this.phase !== RUNNING) return;
    this.end(undefined, err instanceof Error ? err : new ToolPanicError(this.toolName(), err));
  }

  // Completion after the final event is the normal end: the error is built only for a contract
  // break, since an Error's stack costs more than the rest of a call.
  complete(): void {
    if (this.phase !== RUNNING) return;
    const name = this.toolName();
    this.end(undefined, new ToolPanicError(name, undefined, 'completed without a final event'));
  }

  /** Progress from `context.progress(...)`; the context drops it once the call has ended. */
  progress(result: ToolResult): void {
    if (this.phase === RUNNING) this.onProgress(result);
  }

  /**
   * Stops the call without `onEnd`: aborts the context's signal with `reason` (a CancelledError
   * when undefined) before unsubscribing, so the tool's teardown sees it aborted. A call not yet
   * consumed never runs its tool. Does nothing once the call has ended.
   */
  cancel(reason?: unknown): void {
    if (this.phase === ENDED) return;
    this.phase = ENDED;
    this.context?.cancel(reason);
    this.release();
  }

  /** Ends the call: the tool is unsubscribed before `onEnd` hears of it. Once only. */
  end(result: ToolResult | undefined, error: Error | undefined): void {
    if (this.phase === ENDED) return;
    this.phase = ENDED;
    this.context?.finish();
    this.release();
    this.onEnd(result, error);
  }

  /** Lets go of the timer, then of the tool. */
  private release(): void {
    const timer = this.timer;
    if (timer !== undefined) {
      this.timer = undefined;
      timer.unsubscribe();
    }
    const subscription = this.subscription;
    if (subscription === undefined) return;
    this.subscription = undefined;
    this.unsubscribeTool(subscription);
  }

  private toolName(): string {
    return (this.tool as Tool).name;
  }

  /**
   * Unsubscribes the tool. What its teardown throws goes to `onTeardownError`, never into a timer,
   * the batch, a sibling or the caller of `cancel`.
   */
  protected unsubscribeTool(subscription: Unsubscribable): void {
    try {
      subscription.unsubscribe();
    } catch (err) {
      this.onTeardownError(err);
    }
  }
}
