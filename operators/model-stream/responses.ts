import type { FunctionCallItem, OutputItem } from '../../lib/open-responses.js';
import { eventType, type ModelPart, type StreamReader } from './parts.js';

/**
 * The Responses streaming events the reader acts on, typed structurally so the `openai` package's
 * `ResponseStreamEvent` fits as it is. Every other event type is skipped.
 */
export type ResponsesStreamEvent =
  | { readonly type: 'response.output_item.added'; readonly item: OutputItem }
  | { readonly type: 'response.output_item.done'; readonly item: OutputItem }
  | {
      readonly type: 'response.function_call_arguments.delta';
      readonly item_id: string;
      readonly delta: string;
    }
  | {
      readonly type: 'response.output_text.delta';
      readonly item_id: string;
      readonly delta: string;
    }
  | { readonly type: 'response.failed'; readonly response?: { readonly error?: unknown } }
  | { readonly type: 'error'; readonly message?: string; readonly code?: string | null }
  | { readonly type: string };

/**
 * Reads OpenAI Responses events: a function_call is whole at its `response.output_item.done`
 * (its `arguments` then hold the whole text); `response.output_item.added` and the
 * `function_call_arguments` deltas say it is being written. Output text deltas are text. At the
 * end, the items are every output item done, in order, as the next request's input takes them.
 * A `response.failed` or `error` event errors the stream, naming what the provider said.
 */
export class ResponsesReader implements StreamReader<ResponsesStreamEvent, OutputItem> {
  private readonly items: OutputItem[] = [];
  /** The call id of each function_call item being written, by item id. */
  private readonly callIds = new Map<string, string>();

  read(event: ResponsesStreamEvent): readonly ModelPart<OutputItem>[] {
    switch (eventType(event)) {
      case 'response.output_item.added':
        return this.added((event as { item: OutputItem }).item);
      case 'response.function_call_arguments.delta':
        return this.argumentsDelta(event as { item_id: string; delta: string });
      case 'response.output_text.delta': {
        const text = event as { item_id: string; delta: string };
        return [{ type: 'text-delta', id: String(text.item_id), delta: String(text.delta) }];
      }
      case 'response.output_item.done':
        return this.done((event as { item: OutputItem }).item);
      case 'response.failed':
      case 'error':
        throw providerError(event);
      default:
        return [];
    }
  }

  end(): readonly ModelPart<OutputItem>[] {
    return [{ type: 'items', items: this.items }];
  }

  private added(item: OutputItem): readonly ModelPart<OutputItem>[] {
    if (item?.type !== 'function_call') return [];
    const call = item as FunctionCallItem;
    if (call.id !== undefined) this.callIds.set(call.id, call.call_id);
    return [{ type: 'call-start', callId: call.call_id, name: call.name }];
  }

  private argumentsDelta(event: {
    item_id: string;
    delta: string;
  }): readonly ModelPart<OutputItem>[] {
    const callId = this.callIds.get(event.item_id);
    return callId === undefined ? [] : [{ type: 'call-delta', callId, delta: String(event.delta) }];
  }

  private done(item: OutputItem): readonly ModelPart<OutputItem>[] {
    if (item === null || typeof item !== 'object') {
      throw new TypeError('Responses stream: response.output_item.done without an item');
    }
    this.items.push(item);
    if (item.type !== 'function_call') return [];
    const call = item as FunctionCallItem;
    if (call.status === 'incomplete') return []; // cut off (max tokens): never run
    return [{ type: 'call', call: functionCall(call) }];
  }
}

/** The call as the engine takes it: its fields checked, nothing else of the item's. */
function functionCall(item: FunctionCallItem): FunctionCallItem {
  if (typeof item.call_id !== 'string' || typeof item.name !== 'string') {
    throw new TypeError('Responses stream: a function_call item without a call_id or a name');
  }
  return {
    type: 'function_call',
    call_id: item.call_id,
    name: item.name,
    arguments: typeof item.arguments === 'string' ? item.arguments : '',
    ...(item.id === undefined ? {} : { id: item.id }),
    status: 'completed',
  };
}

function providerError(event: unknown): Error {
  const e = event as {
    type: string;
    message?: unknown;
    response?: { error?: { message?: unknown } };
  };
  const said = e.message ?? e.response?.error?.message;
  return new Error(`model stream: ${e.type}${typeof said === 'string' ? `: ${said}` : ''}`);
}
