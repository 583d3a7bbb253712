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
 * An event of an Anthropic Messages stream (`messages.create({ stream: true })` or
 * `messages.stream()`). Typed structurally with only what is read, so the `@anthropic-ai/sdk`
 * package's `RawMessageStreamEvent` and `MessageStreamEvent` fit as they are; every field is
 * checked when read.
 */
export interface AnthropicStreamEvent {
  /** The event's kind: `content_block_start`, `content_block_delta`, `content_block_stop`, ... */
  readonly type: string;
  /** The index of the content block the event is about. */
  readonly index?: number;
  /** The block a `content_block_start` opens: a `tool_use` block is a call. */
  readonly content_block?: {
    /** The block's kind: `tool_use` for a call. */
    readonly type: string;
    /** A `tool_use` block's id, the call's id. */
    readonly id?: unknown;
    /** A `tool_use` block's tool name. */
    readonly name?: unknown;
    /** A `tool_use` block's input so far (`{}` in a stream: the pieces come as deltas). */
    readonly input?: unknown;
  };
  /** What a `content_block_delta` adds: an `input_json_delta`'s `partial_json` for a call. */
  readonly delta?: unknown;
  /** An `error` event's error. */
  readonly error?: unknown;
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
  return callsFrom(stream, () => new AnthropicCalls());
}

/** A `tool_use` block being written. */
interface OpenCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  json: string;
}

/** Messages events to calls: each open `tool_use` block by its index. */
class AnthropicCalls implements CallAssembler<AnthropicStreamEvent> {
  private readonly open = new Map<number, OpenCall>();

  push(event: AnthropicStreamEvent): readonly FunctionCallItem[] {
    switch (event.type) {
      case 'content_block_start':
        this.start(event);
        return [];
      case 'content_block_delta': {
        const call = this.open.get(event.index ?? -1);
        const delta = objectOf(event.delta);
        if (call !== undefined && delta?.type === 'input_json_delta')
          call.json += stringOf(delta.partial_json) ?? '';
        return [];
      }
      case 'content_block_stop': {
        const call = this.open.get(event.index ?? -1);
        if (call === undefined) return [];
        this.open.delete(event.index ?? -1);
        return [finished(call)];
      }
      case 'error':
        throw streamBroke('Anthropic', objectOf(event.error) ?? event);
      default:
        return [];
    }
  }

  end(): readonly FunctionCallItem[] {
    const [unfinished] = this.open.values();
    if (unfinished !== undefined)
      throw new Error(
        `Anthropic stream ended inside tool_use block "${unfinished.id}" (${unfinished.name}): its input never completed`,
      );
    return [];
  }

  private start(event: AnthropicStreamEvent): void {
    const block = objectOf(event.content_block);
    if (block?.type !== 'tool_use') return;
    const id = stringOf(block.id);
    const name = stringOf(block.name);
    if (id === undefined || name === undefined)
      throw new Error(
        `Anthropic stream: a tool_use block without ${id === undefined ? 'id' : 'name'}`,
      );
    this.open.set(event.index ?? -1, { id, name, input: block.input, json: '' });
  }
}

function finished(call: OpenCall): FunctionCallItem {
  return {
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: call.json !== '' ? call.json : inputText(call.input),
  };
}

/** A block's own `input` as JSON text; "" (no arguments) when it has none or none JSON can hold. */
function inputText(input: unknown): string {
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return '';
  }
}
