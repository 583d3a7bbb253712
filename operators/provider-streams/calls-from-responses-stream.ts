import type { Observable } from 'rxjs';
import type { FunctionCallItem } from '../../lib/open-responses.js';
import {
  callsFrom,
  objectOf,
  streamBroke,
  stringOf,
  type CallAssembler,
  type ProviderStream,
} from './stream-calls.js';

/**
 * An event of an Open Responses stream (OpenAI's `responses.create({ stream: true })`). Typed
 * structurally with only what is read, so the `openai` package's `ResponseStreamEvent` fits as
 * it is; every field is checked when read.
 */
export interface ResponsesStreamEvent {
  /** The event's kind: `response.output_item.added`, `response.function_call_arguments.delta`, ... */
  readonly type: string;
  /** The output item of an `output_item.added` or `output_item.done` event. */
  readonly item?: unknown;
  /** The id of the output item a delta or done event is about. */
  readonly item_id?: unknown;
  /** The index of the output item the event is about. */
  readonly output_index?: unknown;
  /** A piece of a function call's arguments. */
  readonly delta?: unknown;
  /** A function call's whole arguments (`response.function_call_arguments.done`). */
  readonly arguments?: unknown;
  /** An `error` event's message. */
  readonly message?: unknown;
  /** The response of a `response.failed` event, with its `error`. */
  readonly response?: unknown;
}

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
  return callsFrom(stream, () => new ResponsesCalls());
}

/** A function call being written: what its `output_item.added` said, and its arguments so far. */
interface OpenCall {
  readonly callId: string;
  readonly name: string;
  readonly itemId: string | undefined;
  arguments: string;
}

/** Open Responses events to calls: each call by its item's key (its id, or its output index). */
class ResponsesCalls implements CallAssembler<ResponsesStreamEvent> {
  private readonly open = new Map<string, OpenCall>();
  private readonly finished = new Set<string>();

  push(event: ResponsesStreamEvent): readonly FunctionCallItem[] {
    switch (event.type) {
      case 'response.output_item.added':
        this.added(event);
        return [];
      case 'response.function_call_arguments.delta': {
        const call = this.open.get(keyOf(event.item_id, event.output_index));
        if (call !== undefined) call.arguments += stringOf(event.delta) ?? '';
        return [];
      }
      case 'response.function_call_arguments.done':
        return this.argumentsDone(event);
      case 'response.output_item.done':
        return this.itemDone(event);
      case 'error':
        throw streamBroke('Responses', event);
      case 'response.failed':
        throw streamBroke('Responses', objectOf(event.response)?.error ?? 'the response failed');
      default:
        return [];
    }
  }

  end(): readonly FunctionCallItem[] {
    const [unfinished] = this.open.values();
    if (unfinished !== undefined)
      throw new Error(
        `Responses stream ended inside function_call "${unfinished.callId}" (${unfinished.name}): its arguments never completed`,
      );
    return [];
  }

  private added(event: ResponsesStreamEvent): void {
    const item = objectOf(event.item);
    if (item?.type !== 'function_call') return;
    const callId = stringOf(item.call_id);
    const name = stringOf(item.name);
    if (callId === undefined || name === undefined)
      throw new Error(
        `Responses stream: a function_call item without ${callId === undefined ? 'call_id' : 'name'}`,
      );
    const itemId = stringOf(item.id);
    const key = keyOf(itemId, event.output_index);
    this.open.set(key, { callId, name, itemId, arguments: stringOf(item.arguments) ?? '' });
  }

  private argumentsDone(event: ResponsesStreamEvent): readonly FunctionCallItem[] {
    const key = keyOf(event.item_id, event.output_index);
    const call = this.open.get(key);
    // A done event for an item never announced: its output_item.done has the call_id.
    if (call === undefined) return [];
    this.open.delete(key);
    this.finished.add(key);
    return [itemOf(call, stringOf(event.arguments) ?? call.arguments)];
  }

  private itemDone(event: ResponsesStreamEvent): readonly FunctionCallItem[] {
    const item = objectOf(event.item);
    if (item?.type !== 'function_call') return [];
    const key = keyOf(item.id, event.output_index);
    if (this.finished.has(key)) return [];
    const open = this.open.get(key);
    this.open.delete(key);
    this.finished.add(key);
    const callId = stringOf(item.call_id) ?? open?.callId;
    const name = stringOf(item.name) ?? open?.name;
    if (callId === undefined || name === undefined)
      throw new Error(
        `Responses stream: a function_call item without ${callId === undefined ? 'call_id' : 'name'}`,
      );
    const status = stringOf(item.status);
    const call: FunctionCallItem = {
      type: 'function_call',
      call_id: callId,
      name,
      arguments: stringOf(item.arguments) ?? open?.arguments ?? '',
    };
    const id = stringOf(item.id);
    if (id !== undefined) call.id = id;
    if (status === 'completed' || status === 'incomplete' || status === 'in_progress')
      call.status = status;
    return [call];
  }
}

/** An output item's key: its id, or `#<output index>` for an item without one. */
function keyOf(id: unknown, outputIndex: unknown): string {
  return stringOf(id) ?? `#${String(outputIndex)}`;
}

function itemOf(call: OpenCall, args: string): FunctionCallItem {
  const item: FunctionCallItem = {
    type: 'function_call',
    call_id: call.callId,
    name: call.name,
    arguments: args,
    status: 'completed',
  };
  if (call.itemId !== undefined) item.id = call.itemId;
  return item;
}
