import type { Observable, Subscription } from 'rxjs';
import type { LoopEvent } from '../../operators/loop-events.js';
import type { AgUiEvent } from './ag-ui-event.js';
import { toAgUiEvents, type AgUiRunOptions } from './ag-ui.js';
import { pipeSse, sseResponse, type ServerResponseLike, type SseFraming } from './sse.js';

/** The headers of an AG-UI event stream: `@ag-ui/encoder`'s content type, unbuffered, uncached. */
export const AG_UI_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** How an HTTP helper serves the run: its ids, and more headers. */
export interface AgUiResponseOptions extends AgUiRunOptions {
  /** Headers added to (or replacing) {@link AG_UI_HEADERS}. */
  headers?: Readonly<Record<string, string>> | undefined;
}

const framing: SseFraming<AgUiEvent> = {
  headers: AG_UI_HEADERS,
  unencodable: (event, reason) => ({
    type: 'CUSTOM',
    name: 'agenttool.error',
    value: { message: `a ${event.type} event is not JSON (${reason}); it was left out` },
  }),
};

/**
 * A model loop as the web `Response` AG-UI's `HttpAgent` reads: its {@link toAgUiEvents} events
 * as server-sent events, `data: <JSON>` and a blank line each, as `@ag-ui/encoder`'s
 * `EventEncoder` writes them (no closing frame: `RUN_FINISHED` or `RUN_ERROR` is the end). The
 * thread and run ids come from the client's `RunAgentInput`. The loop runs when the body is read;
 * a client that goes away cancels the body, which unsubscribes the loop and so cancels its calls.
 * An event that is not JSON (a question with a cycle) is replaced by a `CUSTOM`
 * `agenttool.error` event saying so.
 */
export function agUiResponse(loop$: Observable<LoopEvent>, options: AgUiResponseOptions): Response {
  return sseResponse(toAgUiEvents(loop$, options), framing, options.headers);
}

/**
 * Writes a model loop's AG-UI events to a Node `http.ServerResponse` (or Express's) as {@link
 * agUiResponse} does to a `Response`. When the client disconnects first (the response's `close`),
 * the loop is unsubscribed, which cancels its running calls.
 *
 * @return The subscription to the loop, to stop it from the server's side.
 */
export function pipeAgUiEvents(
  loop$: Observable<LoopEvent>,
  res: ServerResponseLike,
  options: AgUiResponseOptions,
): Subscription {
  return pipeSse(toAgUiEvents(loop$, options), res, framing, options.headers);
}
