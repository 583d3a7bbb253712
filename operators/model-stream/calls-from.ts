/**
 * Calls from a provider's stream, as they complete: the function_call items of an Open
 * Responses, Chat Completions or Anthropic Messages stream, each emitted the moment its
 * arguments are complete (docs/loop.md). They read the stream as {@link agentLoop} does, with
 * the same readers, and keep only the calls.
 *
 * @module
 */
import { defer, filter, map, type Observable } from 'rxjs';
import type { FunctionCallItem } from '../../lib/open-responses.js';
import { AnthropicReader, type AnthropicStreamEvent } from './anthropic.js';
import { ChatCompletionsReader, type ChatCompletionsChunk } from './chat-completions.js';
import {
  readModelStream,
  type ModelPart,
  type ProviderStream,
  type StreamReader,
} from './parts.js';
import { ResponsesReader, type ResponsesStreamEvent } from './responses.js';

/**
 * The function_call items of an Open Responses stream, each emitted the moment its arguments are
 * complete, ready for `jobsFromItems` and {@link executeCalls}.
 *
 * ```
 *   events   -a-d-d-D-o-t-t-a-d-D-o-c|     a: output_item.added (a function_call)
 *                                          d, D: function_call_arguments.delta, .done
 *            callsFromResponsesStream(events)      o: output_item.done   t: text   c: completed
 *
 *   calls    -------1-----------2---|
 * ```
 *
 * A call is complete at its `response.function_call_arguments.done` event, or at its
 * `response.output_item.done` when no done event came before; it is emitted once, with the
 * `call_id` and `name` of its `output_item.added` event and the arguments of its done event
 * (the pieces of its `delta` events when the done event has none). Calls whose deltas interleave
 * are told apart by item id and emitted in the order they complete. Items of other kinds (text,
 * reasoning, a hosted tool's call) are skipped.
 *
 * The Observable errors, after the calls completed before, when the stream fails (the SDK's
 * iterator throws, or an `error` or `response.failed` event arrives) or ends normally with a
 * call still open; that call is not emitted. A call whose arguments are not valid JSON is still
 * emitted: the engine answers it with `invalid arguments: not valid JSON: ...`, which the model
 * reads and can retry on. Unsubscribing stops reading the stream and aborts an SDK stream's
 * request. An SDK stream can be read once: subscribe once.
 *
 * ## Example
 *
 * ```ts
 * const stream = await openai.responses.create({ model, input, tools, stream: true });
 * callsFromResponsesStream(stream)
 *   .pipe(map((call) => jobsFromItems([call], toolSet)[0]!), executeCalls())
 *   .subscribe(render);
 * ```
 *
 * @see {@link callsFromChatCompletionsStream} and {@link callsFromAnthropicStream} for the
 *   other formats.
 * @param stream The SDK's stream, or an Observable of its events.
 * @return The calls, in the order they complete.
 */
export function callsFromResponsesStream(
  stream: ProviderStream<ResponsesStreamEvent>,
): Observable<FunctionCallItem> {
  return callsOf(stream, () => new ResponsesReader());
}

/**
 * The tool calls of a Chat Completions stream as Open Responses function_call items, each
 * emitted the moment its arguments are complete, ready for `jobsFromItems` and
 * {@link executeCalls}.
 *
 * ```
 *   chunks   -t-0-0-0-1-1-f|          t: text   0, 1: pieces of tool calls 0 and 1
 *                                      f: the chunk with finish_reason
 *            callsFromChatCompletionsStream(chunks)
 *
 *   calls    ---------0---1|           call 0 is complete when call 1 starts
 * ```
 *
 * Chat Completions gives a call no end of its own: its pieces arrive by `index`, the first with
 * the call's `id` and `function.name`, the rest appending to `function.arguments`. A call is
 * complete when a piece of a higher index arrives, when the choice's `finish_reason` is set, or
 * when the stream ends normally. Only the first choice (`index` 0) is read; text is skipped.
 *
 * The Observable errors, after the calls completed before, when the stream fails (the SDK's
 * iterator throws, as it does for an error chunk or a broken connection; the call being written
 * is then not emitted), when a piece goes back to a call that was already complete (its calls
 * are then not those of one index after another), and when a call has no id or name. A call
 * whose arguments are not valid JSON is still emitted: the engine answers it with `invalid
 * arguments: not valid JSON: ...`, which the model reads and can retry on. Unsubscribing stops
 * reading the stream and aborts an SDK stream's request. An SDK stream can be read once:
 * subscribe once.
 *
 * ## Example
 *
 * ```ts
 * const stream = await openai.chat.completions.create({ model, messages, tools, stream: true });
 * callsFromChatCompletionsStream(stream)
 *   .pipe(map((call) => jobsFromItems([call], toolSet)[0]!), executeCalls())
 *   .subscribe(render);
 * ```
 *
 * @see {@link callsFromResponsesStream} and {@link callsFromAnthropicStream} for the other
 *   formats.
 * @param stream The SDK's stream, or an Observable of its chunks.
 * @return The calls, in the order they complete.
 */
export function callsFromChatCompletionsStream(
  stream: ProviderStream<ChatCompletionsChunk>,
): Observable<FunctionCallItem> {
  return callsOf(stream, () => new ChatCompletionsReader());
}

/**
 * The `tool_use` blocks of an Anthropic Messages stream as Open Responses function_call items,
 * each emitted the moment its block stops, ready for `jobsFromItems` and {@link executeCalls}.
 *
 * ```
 *   events   -s-t-u-j-j-p-u-j-p-m|     s: message_start   t: a text block   m: message_stop
 *                                      u: content_block_start (tool_use)
 *            callsFromAnthropicStream(events)          j: input_json_delta   p: content_block_stop
 *
 *   calls    -----------1-----2--|
 * ```
 *
 * A call's `call_id` and `name` are its block's `id` and `name`, its `arguments` the
 * `partial_json` pieces of its `input_json_delta` events joined (the block's own `input` as
 * JSON when no piece came, as for a tool without arguments). Other blocks (text, thinking, a
 * server tool's call) are skipped.
 *
 * The Observable errors, after the calls completed before, when the stream fails (the SDK's
 * iterator throws, as it does for an `error` event or a broken connection) or ends normally with
 * a `tool_use` block not stopped; that call is not emitted. A call whose arguments are not valid
 * JSON is still emitted: the engine answers it with `invalid arguments: not valid JSON: ...`,
 * which the model reads and can retry on. Unsubscribing stops reading the stream and aborts an
 * SDK stream's request. An SDK stream can be read once: subscribe once.
 *
 * ## Example
 *
 * ```ts
 * const stream = anthropic.messages.stream({ model, max_tokens, messages, tools });
 * callsFromAnthropicStream(stream)
 *   .pipe(map((call) => jobsFromItems([call], toolSet)[0]!), executeCalls())
 *   .subscribe(render);
 * ```
 *
 * @see {@link callsFromResponsesStream} and {@link callsFromChatCompletionsStream} for the
 *   other formats.
 * @param stream The SDK's stream, or an Observable of its events.
 * @return The calls, in the order their blocks stop.
 */
export function callsFromAnthropicStream(
  stream: ProviderStream<AnthropicStreamEvent>,
): Observable<FunctionCallItem> {
  return callsOf(stream, () => new AnthropicReader());
}

/** The calls a reader finds in `stream`, a reader of its own for each subscription. */
function callsOf<E, I>(
  stream: ProviderStream<E>,
  reader: () => StreamReader<E, I>,
): Observable<FunctionCallItem> {
  return defer(() => readModelStream(stream, reader())).pipe(
    filter((part): part is Extract<ModelPart<I>, { type: 'call' }> => part.type === 'call'),
    map((part) => part.call),
  );
}
