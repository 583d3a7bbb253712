import type { FunctionCallItem, OutputItem } from '../../lib/open-responses.js';
import {
  eventType,
  objectOf,
  streamBroke,
  stringOf,
  type ModelPart,
  type StreamReader,
} from './parts.js';

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
  /** A piece of a function call's arguments, or of the model's text. */
  readonly delta?: unknown;
  /** A function call's whole arguments (`response.function_call_arguments.done`). */
  readonly arguments?: unknown;
  /** An `error` event's message. */
  readonly message?: unknown;
  /** The response of a `response.failed` event, with its `error`. */
  readonly response?: unknown;
}

/** A function call being written: what its `output_item.added` said, and its arguments so far. */
interface OpenCall {
  readonly callId: string;
  readonly name: string;
  readonly itemId: string | undefined;
  arguments: string;
}

/**
 * Reads Open Responses events. A function_call is announced by `response.output_item.added`,
 * written by `response.function_call_arguments.delta` events, and whole at its
 * `response.function_call_arguments.done`, or at its `response.output_item.done` when no done
 * event came before; calls whose deltas interleave are told apart by item id (or output index).
 * Output text deltas are text. At the end, the items are every output item done, in order, as the
 * next request's input takes them. An `error` or `response.failed` event errors the stream with
 * what the provider said; so does a normal end with a call still open, and a function_call
 * without its `call_id` or `name`.
 */
export class ResponsesReader implements StreamReader<ResponsesStreamEvent, OutputItem> {
  private readonly items: OutputItem[] = [];
  private readonly open = new Map<string, OpenCall>();
  private readonly finished = new Set<string>();

  read(event: ResponsesStreamEvent): readonly ModelPart<OutputItem>[] {
    switch (eventType(event)) {
      case 'response.output_item.added':
        return this.added(event);
      case 'response.function_call_arguments.delta':
        return this.argumentsDelta(event);
      case 'response.function_call_arguments.done':
        return this.argumentsDone(event);
      case 'response.output_text.delta': {
        const delta = stringOf(event.delta) ?? '';
        return [{ type: 'text-delta', id: stringOf(event.item_id) ?? 'text', delta }];
      }
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

  end(): readonly ModelPart<OutputItem>[] {
    const [unfinished] = this.open.values();
    if (unfinished !== undefined)
      throw new Error(
        `Responses stream ended inside function_call "${unfinished.callId}" (${unfinished.name}): its arguments never completed`,
      );
    return [{ type: 'items', items: this.items }];
  }

  private added(event: ResponsesStreamEvent): readonly ModelPart<OutputItem>[] {
    const item = objectOf(event.item);
    if (item?.type !== 'function_call') return [];
    const callId = stringOf(item.call_id);
    const name = stringOf(item.name);
    if (callId === undefined || name === undefined) throw withoutField(callId);
    const itemId = stringOf(item.id);
    const key = keyOf(itemId, event.output_index);
    this.open.set(key, { callId, name, itemId, arguments: stringOf(item.arguments) ?? '' });
    return [{ type: 'call-start', callId, name }];
  }

  private argumentsDelta(event: ResponsesStreamEvent): readonly ModelPart<OutputItem>[] {
    const call = this.open.get(keyOf(event.item_id, event.output_index));
    const delta = stringOf(event.delta) ?? '';
    if (call === undefined || delta === '') return [];
    call.arguments += delta;
    return [{ type: 'call-delta', callId: call.callId, delta }];
  }

  private argumentsDone(event: ResponsesStreamEvent): readonly ModelPart<OutputItem>[] {
    const key = keyOf(event.item_id, event.output_index);
    const call = this.open.get(key);
    // A done event for an item never announced: its output_item.done has the call_id.
    if (call === undefined) return [];
    this.open.delete(key);
    this.finished.add(key);
    const done: FunctionCallItem = {
      type: 'function_call',
      call_id: call.callId,
      name: call.name,
      arguments: stringOf(event.arguments) ?? call.arguments,
      status: 'completed',
    };
    if (call.itemId !== undefined) done.id = call.itemId;
    return [{ type: 'call', call: done }];
  }

  private itemDone(event: ResponsesStreamEvent): readonly ModelPart<OutputItem>[] {
    const item = objectOf(event.item);
    if (item === undefined)
      throw new TypeError('Responses stream: an output_item.done without an item');
    this.items.push(item as OutputItem);
    if (item.type !== 'function_call') return [];
    const key = keyOf(item.id, event.output_index);
    if (this.finished.has(key)) return [];
    const open = this.open.get(key);
    this.open.delete(key);
    this.finished.add(key);
    const callId = stringOf(item.call_id) ?? open?.callId;
    const name = stringOf(item.name) ?? open?.name;
    if (callId === undefined || name === undefined) throw withoutField(callId);
    const call: FunctionCallItem = {
      type: 'function_call',
      call_id: callId,
      name,
      arguments: stringOf(item.arguments) ?? open?.arguments ?? '',
    };
    const id = stringOf(item.id);
    if (id !== undefined) call.id = id;
    const status = stringOf(item.status);
    // An incomplete call (cut off at max tokens) still runs: the engine answers its arguments,
    // so the next request has an output for every call it sends back.
    if (status === 'completed' || status === 'incomplete' || status === 'in_progress')
      call.status = status;
    return [{ type: 'call', call }];
  }
}

function withoutField(callId: string | undefined): Error {
  return new Error(
    `Responses stream: a function_call item without ${callId === undefined ? 'call_id' : 'name'}`,
  );
}

/** An output item's key: its id, or `#<output index>` for an item without one. */
function keyOf(id: unknown, outputIndex: unknown): string {
  return stringOf(id) ?? `#${String(outputIndex)}`;
}
