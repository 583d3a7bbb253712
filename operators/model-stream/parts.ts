import { from, isObservable, Observable, switchMap, type ObservableInput } from 'rxjs';
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
      next(event) {
        let parts: readonly ModelPart<I>[];
        try {
          parts = reader.read(event);
        } catch (err) {
          subscriber.error(err);
          return;
        }
        for (const part of parts) subscriber.next(part);
      },
      error: (err: unknown) => subscriber.error(err),
      complete() {
        for (const part of reader.end()) subscriber.next(part);
        subscriber.complete();
      },
    }),
  );
}

/** A provider stream as an Observable of its events. */
export function eventsOf<E>(stream: ProviderStream<E>): Observable<E> {
  if (isObservable(stream)) return stream;
  if (isThenable(stream)) {
    return from(stream as PromiseLike<ObservableInput<E>>).pipe(
      switchMap((inner) => eventsOf(inner as ProviderStream<E>)),
    );
  }
  return from(stream);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The event's `type` field when it is a string, for a clear message about one that is not. */
export function eventType(event: unknown): string | undefined {
  const type = (event as { type?: unknown } | null | undefined)?.type;
  return typeof type === 'string' ? type : undefined;
}
