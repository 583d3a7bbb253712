/**
 * Server-sent events for the wire encoders: each event a `data: <JSON>\n\n` frame, as both the AI
 * SDK's UI message stream and AG-UI's `@ag-ui/encoder` write them, into a web `Response` or a
 * Node `ServerResponse`. Nothing here imports Node: a runtime with `Response` and
 * `ReadableStream` (Node 20, Deno, Bun, workers, a browser's service worker) serves the first.
 *
 * @module
 */
import type { Observable, Subscription } from 'rxjs';
import { messageOf } from './loop-encoder.js';

/**
 * The part of Node's `http.ServerResponse` the pipe uses (Express's and Fastify's raw response
 * have it too): headers, writes, the end, and the `close` event a client's disconnect fires.
 */
export interface ServerResponseLike {
  /** Sends the status and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Writes a piece of the body. */
  write(chunk: string): unknown;
  /** Ends the body. */
  end(): unknown;
  /** Listens once for `close`: the response ended or the client went away. */
  once(event: 'close', listener: () => void): unknown;
  /** True once the connection is gone (Node sets it; a response without it is taken as open). */
  readonly destroyed?: boolean;
}

/** How one protocol frames its events. */
export interface SseFraming<T> {
  /** The response's headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The frame after the last event, if the protocol has one (the AI SDK's `data: [DONE]`). */
  readonly done?: string;
  /**
   * What to send in place of an event that is not JSON (a cycle, a BigInt in a tool's output), so
   * the stream goes on and the client learns why: an event of the protocol saying so.
   */
  readonly unencodable: (event: T, reason: string) => T;
}

/** `event` as one SSE frame, or the protocol's stand-in for it when it is not JSON. */
export function sseFrame<T>(event: T, framing: SseFraming<T>): string {
  try {
    return `data: ${JSON.stringify(event)}\n\n`;
  } catch (error) {
    return `data: ${JSON.stringify(framing.unencodable(event, messageOf(error)))}\n\n`;
  }
}

/**
 * The events as a web `Response` of server-sent events: status 200, the protocol's headers, one
 * frame per event, then its closing frame. Cancelling the body (the client went away, the server
 * aborted the request) unsubscribes the events.
 */
export function sseResponse<T>(
  events$: Observable<T>,
  framing: SseFraming<T>,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const encoder = new TextEncoder();
  let subscription: Subscription | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      subscription = events$.subscribe({
        next: (event) => controller.enqueue(encoder.encode(sseFrame(event, framing))),
        error: (error: unknown) => controller.error(error),
        complete: () => {
          if (framing.done !== undefined) controller.enqueue(encoder.encode(framing.done));
          controller.close();
        },
      });
    },
    cancel() {
      subscription?.unsubscribe();
    },
  });
  return new Response(body, { status: 200, headers: { ...framing.headers, ...headers } });
}

/**
 * Writes the events to a Node response as server-sent events: the protocol's headers, a frame
 * per event as it comes (a loop's events are small and come at the model's pace, so the writes
 * do not wait for the socket to drain), the closing frame, the end. The response's `close` before the end (the client
 * disconnected) unsubscribes the events. An error of the events ends the response where it is.
 *
 * @return The subscription, to stop early from the server's side.
 */
export function pipeSse<T>(
  events$: Observable<T>,
  res: ServerResponseLike,
  framing: SseFraming<T>,
  headers: Readonly<Record<string, string>> = {},
): Subscription {
  res.writeHead(200, { ...framing.headers, ...headers });
  const subscription = events$.subscribe({
    next: (event) => res.write(sseFrame(event, framing)),
    error: () => res.end(),
    complete: () => {
      if (framing.done !== undefined) res.write(framing.done);
      res.end();
    },
  });
  res.once('close', () => subscription.unsubscribe());
  if (res.destroyed === true) subscription.unsubscribe(); // gone before the first write
  return subscription;
}
