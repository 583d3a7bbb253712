import { from, isObservable, Observable, switchMap, type Subscriber } from 'rxjs';
import type { FunctionCallItem } from '../../lib/open-responses.js';

/**
 * What a model's stream says, read into the pieces {@link agentLoop} and the `callsFrom*` readers
 * act on: text as it comes, each call as it is written and once it is whole, and at the end the
 * model's own items for the conversation (`I`: Open Responses items, Chat Completions messages or
 * Anthropic messages).
 */
export type ModelPart<I = unknown> =
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'call-start'; readonly callId: string; readonly name: string }
  | { readonly type: 'call-delta'; readonly callId: string; readonly delta: string }
  | { readonly type: 'call'; readonly call: FunctionCallItem }
  | { readonly type: 'items'; readonly items: readonly I[] };

/**
 * A provider's stream as an SDK hands it over: an AsyncIterable of events (the `openai` and
 * `@anthropic-ai/sdk` streams), an Observable of them, or a Promise of either (what
 * `client.responses.create({ stream: true })` returns).
 */
export type ProviderStream<E> =
  AsyncIterable<E> | Observable<E> | PromiseLike<AsyncIterable<E> | Observable<E>>;

/** Reads one provider's events, one at a time, into parts; `end` gives what the end completes. */
export interface StreamReader<E, I> {
  /** The parts one event makes (none for an event that only adds to what is pending). */
  read(event: E): readonly ModelPart<I>[];
  /** The parts the stream's normal end completes: the calls still open, then the items. */
  end(): readonly ModelPart<I>[];
}

/**
 * The parts of a provider's stream, each emitted the moment its event arrives. An event the
 * reader cannot make sense of errors the Observable with what it said; so does the stream's own
 * error, after the parts of every event before it: a call whose last piece never came is never
 * emitted. Unsubscribing stops reading (an AsyncIterable is left at its next value; abort the
 * request's signal to close it at once).
 */
export function readModelStream<E, I>(
  stream: ProviderStream<E>,
  reader: StreamReader<E, I>,
): Observable<ModelPart<I>> {
  return new Observable<ModelPart<I>>((subscriber) =>
    eventsOf(stream).subscribe({
      next: (event) => void emitParts(subscriber, () => reader.read(event)),
      error: (err: unknown) => subscriber.error(err),
      complete: () => {
        if (emitParts(subscriber, () => reader.end())) subscriber.complete();
      },
    }),
  );
}

/** Emits the parts `read` gives; false, with the subscriber errored, when it throws. */
function emitParts<I>(
  subscriber: Subscriber<ModelPart<I>>,
  read: () => readonly ModelPart<I>[],
): boolean {
  let parts: readonly ModelPart<I>[];
  try {
    parts = read();
  } catch (err) {
    subscriber.error(err);
    return false;
  }
  for (const part of parts) subscriber.next(part);
  return true;
}

/**
 * A provider stream as an Observable of its events. An Observable is used as it is; a Promise is
 * awaited; an AsyncIterable is read one event at a time, and unsubscribing stops it: its
 * iterator's `return()` is called and, for an SDK stream (one with a `controller`), the
 * controller is aborted, which ends the HTTP request at once. `return()` alone would wait for the
 * next event to arrive: an async generator runs a `return()` only once the `next()` it is
 * awaiting has settled.
 */
export function eventsOf<E>(stream: ProviderStream<E>): Observable<E> {
  if (isObservable(stream)) return stream;
  if (isThenable(stream)) {
    return from(stream as PromiseLike<AsyncIterable<E> | Observable<E>>).pipe(
      switchMap((inner) => eventsOf(inner)),
    );
  }
  const iterable = stream as AsyncIterable<E>;
  return new Observable<E>((subscriber) => {
    const reading = { ended: false };
    let iterator: AsyncIterator<E>;
    try {
      iterator = iterable[Symbol.asyncIterator]();
    } catch (err) {
      subscriber.error(err);
      return;
    }
    void pump(iterator, subscriber, reading);
    return () => {
      if (!reading.ended) stop(iterable, iterator);
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

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The event's `type` field when it is a string, for a clear message about one that is not. */
export function eventType(event: unknown): string | undefined {
  return stringOf(objectOf(event)?.type);
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
