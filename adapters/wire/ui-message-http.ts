import type { Observable, Subscription } from 'rxjs';
import type { LoopEvent } from '../../operators/loop-events.js';
import { pipeSse, sseResponse, type ServerResponseLike, type SseFraming } from './sse.js';
import type { UIMessageChunk } from './ui-message-chunk.js';
import { toUIMessageStream, type UIMessageStreamOptions } from './ui-message-stream.js';

/**
 * The headers of a UI message stream response, as the AI SDK sends them
 * (`UI_MESSAGE_STREAM_HEADERS`): `useChat`'s default transport reads the body as this stream.
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/** How an HTTP helper serves the stream: {@link UIMessageStreamOptions} and more headers. */
export interface UIMessageResponseOptions extends UIMessageStreamOptions {
  /** Headers added to (or replacing) {@link UI_MESSAGE_STREAM_HEADERS}. */
  headers?: Readonly<Record<string, string>> | undefined;
}

const framing: SseFraming<UIMessageChunk> = {
  headers: UI_MESSAGE_STREAM_HEADERS,
  done: 'data: [DONE]\n\n',
  unencodable: standIn,
};

/**
 * What is sent for a chunk that is not JSON: a call's input or final output becomes that call's
 * error, so the fault stays in its tool part (and the part exists for what comes after it);
 * anything else an `error` chunk.
 */
function standIn(chunk: UIMessageChunk, reason: string): UIMessageChunk {
  const errorText = `a ${chunk.type} chunk is not JSON (${reason}); it was left out`;
  const dynamic =
    chunk.type.startsWith('tool-') && 'dynamic' in chunk ? { dynamic: chunk.dynamic } : {};
  if (chunk.type === 'tool-input-available') {
    const { toolCallId, toolName } = chunk;
    return { type: 'tool-input-error', toolCallId, toolName, input: null, errorText, ...dynamic };
  }
  if (chunk.type === 'tool-output-available' && chunk.preliminary !== true)
    return { type: 'tool-output-error', toolCallId: chunk.toolCallId, errorText, ...dynamic };
  return { type: 'error', errorText };
}

/**
 * A model loop as the web `Response` `useChat` reads: its {@link toUIMessageStream} chunks as
 * server-sent events (`data: <JSON>`, a blank line after each), ending with `data: [DONE]`, with
 * the AI SDK's headers. For a route handler (Next.js, Hono, a worker): `return
 * uiMessageStreamResponse(agentLoop(...))`. The loop runs when the body is read; a client that
 * goes away cancels the body, which unsubscribes the loop and so cancels its calls. A chunk that
 * is not JSON (a tool output with a cycle, arguments nested too deep) is replaced by one saying
 * so: the call's `tool-input-error` or `tool-output-error`, else an `error` chunk.
 */
export function uiMessageStreamResponse(
  loop$: Observable<LoopEvent>,
  options: UIMessageResponseOptions = {},
): Response {
  return sseResponse(toUIMessageStream(loop$, options), framing, options.headers);
}

/**
 * Writes a model loop to a Node `http.ServerResponse` (or Express's) as {@link
 * uiMessageStreamResponse} does to a `Response`: status 200, the AI SDK's headers, the chunks as
 * server-sent events, `data: [DONE]`, the end. When the client disconnects first (the response's
 * `close`), the loop is unsubscribed, which cancels its running calls.
 *
 * @return The subscription to the loop, to stop it from the server's side.
 */
export function pipeUIMessageStream(
  loop$: Observable<LoopEvent>,
  res: ServerResponseLike,
  options: UIMessageResponseOptions = {},
): Subscription {
  return pipeSse(toUIMessageStream(loop$, options), res, framing, options.headers);
}
