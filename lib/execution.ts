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
import { isObservable, Observable, type Subscriber, type Unsubscribable } from 'rxjs';
import { CallContext, type ProgressSink } from './context.js';
import { ToolPanicError } from './errors.js';
import type { ToolCall, ToolContext, ToolEvent, ToolResult } from './contract.js';

/** How a function's returned values become results. */
export interface ResultMapping {
  /** The tool's name, for a ToolPanicError. */
  readonly tool: string;
  /** The final value to the final result. */
  final(value: unknown): ToolResult;
  /** How an Observable's values are read: as ToolEvents already, or as values to map. */
  readonly observableOfEvents: boolean;
}

function failure(mapping: ResultMapping, err: unknown): unknown {
  return err instanceof Error ? err : new ToolPanicError(mapping.tool, err);
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncGenerator).next === 'function' &&
    typeof (value as AsyncGenerator)[Symbol.asyncIterator] === 'function'
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/**
 * One subscription's state: the sink of its context's progress and the teardown of its
 * subscription at once, so the call's whole state is one object with methods.
 */
class FunctionCall implements ProgressSink, Unsubscribable {
  readonly context: CallContext;
  private teardown: (() => void) | undefined = undefined;

  constructor(
    private readonly subscriber: Subscriber<ToolEvent>,
    private readonly mapping: ResultMapping,
    call: ToolCall,
    outer: ToolContext,
  ) {
    this.context = new CallContext(call, { sink: this, parent: outer });
  }

  progress(result: ToolResult): void {
    this.subscriber.next({ final: false, result });
  }

  /** Follows what the function returned, or what its Promise resolved to. */
  follow(value: unknown): void {
    if (this.subscriber.closed) return;
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
        this.subscriber,
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

  /** The subscription's teardown: cancels a call still running, stops what it follows. */
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
    const state = new FunctionCall(subscriber, mapping, call, outer);
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
  subscriber: Subscriber<ToolEvent>,
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
  subscriber: Subscriber<ToolEvent>,
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
    if (subscriber.closed && !context.cancelled) return;
    stopped = true;
    // Runs the generator's finally blocks; what it returns then is nobody's business.
    generator.return(undefined).catch(() => undefined);
  };
}
