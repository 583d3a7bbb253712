/**
 * What the three `callsFrom...Stream` functions share: reading a provider's stream (an SDK's
 * AsyncIterable or an Observable) as an Observable that stops the stream when unsubscribed, and
 * turning its events into function_call items through a per-provider assembler.
 *
 * @module
 */
import { isObservable, Observable, type Subscriber } from 'rxjs';
import type { FunctionCallItem } from '../../lib/open-responses.js';

/**
 * A provider's stream of events: what an SDK's streaming call gives (the `openai` and
 * `@anthropic-ai/sdk` packages' `Stream`, Anthropic's `MessageStream`), any other AsyncIterable,
 * or an rxjs Observable of the same events.
 */
export type ProviderStream<E> = AsyncIterable<E> | Observable<E>;

/**
 * One provider's way from events to calls. `push` is given each event in order and returns the
 * calls that event completed; `end` is called once the stream has ended normally and returns the
 * calls its end completed. Either throws to end the Observable with that error.
 */
export interface CallAssembler<E> {
  push(event: E): readonly FunctionCallItem[];
  end(): readonly FunctionCallItem[];
}

/**
 * The function_call items of `source`, each emitted the moment `assembler` finds it complete. A
 * source error (or an assembler's throw) is passed on after the calls completed before it; a call
 * still being written then is never emitted. Each subscription makes its own assembler.
 */
export function callsFrom<E>(
  source: ProviderStream<E>,
  assembler: () => CallAssembler<E>,
): Observable<FunctionCallItem> {
  return new Observable<FunctionCallItem>((subscriber) => {
    const calls = assembler();
    return eventsOf(source).subscribe({
      next: (event) => emit(subscriber, () => calls.push(event)),
      error: (err: unknown) => subscriber.error(err),
      complete: () => {
        if (emit(subscriber, () => calls.end())) subscriber.complete();
      },
    });
  });
}

/** Emits the calls `completed` gives; false, with the subscriber errored, when it throws. */
function emit(
  subscriber: Subscriber<FunctionCallItem>,
  completed: () => readonly FunctionCallItem[],
): boolean {
  let calls: readonly FunctionCallItem[];
  try {
    calls = completed();
  } catch (err) {
    subscriber.error(err);
    return false;
  }
  for (const call of calls) subscriber.next(call);
  return true;
}

/**
 * `source` as an Observable. An Observable is used as it is; an AsyncIterable is read one event
 * at a time, and unsubscribing stops it: its iterator's `return()` is called and, for an SDK
 * stream (one with a `controller`), the controller is aborted, which ends the HTTP request at
 * once. `return()` alone would wait for the next event to arrive: an async generator runs a
 * `return()` only once the `next()` it is awaiting has settled.
 */
export function eventsOf<E>(source: ProviderStream<E>): Observable<E> {
  if (isObservable(source)) return source;
  return new Observable<E>((subscriber) => {
    const reading = { ended: false };
    let iterator: AsyncIterator<E>;
    try {
      iterator = source[Symbol.asyncIterator]();
    } catch (err) {
      subscriber.error(err);
      return;
    }
    void pump(iterator, subscriber, reading);
    return () => {
      if (!reading.ended) stop(source, iterator);
    };
  });
}

/** Reads `iterator` into `subscriber` until it ends, fails, or the subscriber unsubscribes. */
async function pump<E>(
  iterator: AsyncIterator<E>,
  subscriber: Subscriber<E>,
  reading: { ended: boolean },
): Promise<void> {
  try {
    while (!subscriber.closed) {
      const step = await iterator.next();
      if (subscriber.closed) return;
      if (step.done === true) {
        reading.ended = true;
        subscriber.complete();
        return;
      }
      subscriber.next(step.value);
    }
  } catch (err) {
    reading.ended = true;
    // After an unsubscribe the subscriber is closed, and this does nothing.
    subscriber.error(err);
  }
}

/** Stops a stream its reader no longer wants: `return()`, and an SDK stream's abort. */
function stop<E>(source: AsyncIterable<E>, iterator: AsyncIterator<E>): void {
  const controller = (source as { controller?: { abort?: unknown } }).controller;
  if (typeof controller?.abort === 'function') (controller.abort as () => void).call(controller);
  try {
    Promise.resolve(iterator.return?.()).catch(() => undefined);
  } catch {
    // An iterator whose return() throws has stopped as far as this reader is concerned.
  }
}

/** `value` when it is a string, else undefined: stream events are read, never trusted. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` when it is a non-null object, else undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A provider's error event as an Error with its message: the stream broke. */
export function streamBroke(provider: string, error: unknown): Error {
  const detail = objectOf(error);
  const message = stringOf(detail?.message) ?? stringOf(error) ?? 'no message';
  return new Error(`${provider} stream failed: ${message}`, { cause: error });
}
