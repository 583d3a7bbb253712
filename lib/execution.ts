/**
 * The machinery shared by `tool()` and `rawTool()`: running a function that returns a value, a
 * Promise, an async generator or an Observable as one call's `Observable<ToolEvent>`.
 *
 * The function gets a context of its own whose progress goes into the call's observable (so a
 * subscriber of `execute` sees it in order with the final event), whose signal aborts when that
 * observable is unsubscribed before its final event, and which takes `record` and `session` from
 * the context the runner passed in.
 *
 * @module
 */
import { isObservable, Observable, type Unsubscribable } from 'rxjs';
import { CallContext, type ProgressSink } from './context.js';
import { ToolPanicError } from './errors.js';
import type { Tool, ToolCall, ToolContext, ToolEvent, ToolResult } from './contract.js';

/** How a function's returned values become results. */
export interface ResultMapping {
  /** The tool's name, for a ToolPanicError. */
  readonly tool: string;
  /** The final value to the final result. */
  final(value: unknown): ToolResult;
  /** How an Observable's values are read: as ToolEvents already, or as values to map. */
  readonly observableOfEvents: boolean;
}

/** A thrown value as the call's failure: an Error as is, anything else a ToolPanicError. */
export function failure(mapping: ResultMapping, err: unknown): Error {
  return err instanceof Error ? err : new ToolPanicError(mapping.tool, err);
}

/**
 * Where a followed function's events go: the Subscriber of the call's Observable, or a runner
 * that runs the function itself ({@link DirectRun}).
 */
export interface EventSink {
  next(event: ToolEvent): void;
  error(err: unknown): void;
  complete(): void;
}

/**
 * A `tool()` or `rawTool()` tool's function, for a runner that owns the call's context: the
 * runner calls `run` with that context and reads a plain returned value as the final at once,
 * instead of subscribing `execute`'s Observable (a call that returns a value then costs what the
 * function costs: no Observable, no Subscriber, no second context). What the function returns
 * otherwise (a Promise, an async generator, an Observable) is followed as `execute` follows it.
 * Both ways give the same events in the same order (test/tool/direct-run.test.ts runs the same calls
 * both ways). The Node entry registers the runner (lib/direct-run.ts); a browser bundle subscribes
 * `execute` and stays smaller.
 */
export interface DirectRun {
  readonly mapping: ResultMapping;
  run(context: CallContext, call: ToolCall): unknown;
}

/** Where a tool's `execute` keeps its {@link DirectRun}. */
export const DIRECT = Symbol('direct');

/**
 * The `execute` of a tool that runs `run` as one call's Observable ({@link callObservable}),
 * carrying the {@link DirectRun} of the same function under {@link DIRECT}. On the function, not
 * the tool: a tool whose `execute` was replaced or wrapped has none, and a copy (`{ ...tool }`)
 * runs the same function either way.
 */
export function functionExecute(
  mapping: ResultMapping,
  run: (context: CallContext, call: ToolCall) => unknown,
): Tool['execute'] {
  const execute: Tool['execute'] & { [DIRECT]?: DirectRun } = (call, context) =>
    callObservable(call, context, mapping, run);
  execute[DIRECT] = { mapping, run };
  return execute;
}

export function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncGenerator).next === 'function' &&
    typeof (value as AsyncGenerator)[Symbol.asyncIterator] === 'function'
  );
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/**
 * One call's following of its function: the sink of its context's progress and the teardown of
 * its subscription at once, so the call's whole state is one object with methods.
 */
export class FunctionCall implements ProgressSink, Unsubscribable {
  /**
   * The function's context, set by whoever makes this: a context of its own whose sink this is
   * ({@link callObservable}), or the runner's own (lib/direct-run.ts).
   */
  declare context: CallContext;
  private teardown: (() => void) | undefined = undefined;

  constructor(
    private readonly subscriber: EventSink,
    private readonly mapping: ResultMapping,
  ) {}

  progress(result: ToolResult): void {
    this.subscriber.next({ final: false, result });
  }

  /** Follows what the function returned, or what its Promise resolved to. */
  follow(value: unknown): void {
    // A call that ends before its function's Promise settles is cancelled (unsubscribed, timed
    // out, aborted): what the Promise resolves to is not followed then.
    if (this.context.cancelled) return;
    if (isObservable(value)) {
      this.teardown = followObservable(
        value,
        this.mapping,
        this.subscriber,
        this.context,
        (last) => this.end(last),
        (err) => this.fail(err),
      );
    } else if (isAsyncGenerator(value)) {
      this.teardown = followGenerator(
        value,
        this.context,
        (last) => this.end(last),
        (err) => this.fail(err),
      );
    } else if (isThenable(value)) {
      value.then(
        (resolved) => this.follow(resolved),
        (err: unknown) => this.fail(err),
      );
    } else {
      this.end(value);
    }
  }

  /** The final value: mapped to the final result, then completion. */
  end(value: unknown): void {
    let result: ToolResult;
    try {
      result = this.mapping.final(value);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.context.finish();
    this.subscriber.next({ final: true, result });
    this.subscriber.complete();
  }

  fail(err: unknown): void {
    this.context.finish();
    this.subscriber.error(failure(this.mapping, err));
  }

  /**
   * The subscription's teardown: cancels a call still running, stops what it follows. (A runner
   * that lent its own context has cancelled or finished it first: the cancel does nothing then.)
   */
  unsubscribe(): void {
    this.context.cancel();
    this.teardown?.();
  }
}

/**
 * One call as an Observable: `run(context, call)` is called on subscription with the function's
 * own context and the call as given, and its outcome is mapped by `mapping`. A thrown Error or a rejection errors the
 * observable (the tool's failure); a thrown non-Error value errors it with a ToolPanicError.
 */
export function callObservable(
  call: ToolCall,
  outer: ToolContext,
  mapping: ResultMapping,
  run: (context: CallContext, call: ToolCall) => unknown,
): Observable<ToolEvent> {
  return new Observable<ToolEvent>((subscriber) => {
    const state = new FunctionCall(subscriber, mapping);
    state.context = new CallContext(call, { sink: state, parent: outer });
    try {
      state.follow(run(state.context, call));
    } catch (err) {
      state.fail(err);
    }
    return state;
  });
}

function followObservable(
  source: Observable<unknown>,
  mapping: ResultMapping,
  subscriber: EventSink,
  context: CallContext,
  end: (value: unknown) => void,
  fail: (err: unknown) => void,
): () => void {
  if (mapping.observableOfEvents) {
    const inner = (source as Observable<ToolEvent>).subscribe({
      next: (event) => {
        if (event.final) context.finish();
        subscriber.next(event);
      },
      error: fail,
      complete: () => {
        context.finish();
        subscriber.complete();
      },
    });
    return () => inner.unsubscribe();
  }
  let last: { value: unknown } | undefined;
  const inner = source.subscribe({
    next: (value) => {
      last = { value };
      let result: ToolResult;
      try {
        result = mapping.final(value);
      } catch (err) {
        fail(err);
        return;
      }
      subscriber.next({ final: false, result });
    },
    error: fail,
    complete: () => {
      if (last === undefined)
        fail(new ToolPanicError(mapping.tool, undefined, 'observable completed without a value'));
      else end(last.value);
    },
  });
  return () => inner.unsubscribe();
}

function followGenerator(
  generator: AsyncGenerator<unknown, unknown>,
  context: CallContext,
  end: (value: unknown) => void,
  fail: (err: unknown) => void,
): () => void {
  let stopped = false;
  const step = (): void => {
    generator.next().then((item) => {
      if (stopped) return;
      if (item.done === true) {
        end(item.value);
        return;
      }
      context.progress(item.value as never);
      step();
    }, fail);
  };
  step();
  return () => {
    // Torn down after its return: nothing to stop.
    if (!context.cancelled) return;
    stopped = true;
    // Runs the generator's finally blocks; what it returns then is nobody's business.
    generator.return(undefined).catch(() => undefined);
  };
}
