import type { AnthropicToolResult } from '../anthropic-messages.js';
import {
  eventType,
  objectOf,
  streamBroke,
  stringOf,
  type ModelPart,
  type StreamReader,
} from './parts.js';

/**
 * An event of an Anthropic Messages stream (`messages.create({ stream: true })` or
 * `messages.stream()`). Typed structurally with only what is read, so the `@anthropic-ai/sdk`
 * package's `RawMessageStreamEvent` and `MessageStreamEvent` fit as they are; every field is
 * checked when read.
 */
export interface AnthropicStreamEvent {
  /** The event's kind: `content_block_start`, `content_block_delta`, `content_block_stop`, ... */
  readonly type: string;
  /** A `message_start`'s message, with its `id`. */
  readonly message?: unknown;
  /** The index of the content block the event is about. */
  readonly index?: number;
  /** The block a `content_block_start` opens: a `tool_use` block is a call. */
  readonly content_block?: {
    /** The block's kind: `tool_use` for a call, `text`, `thinking`, ... */
    readonly type: string;
    /** A `tool_use` block's id, the call's id. */
    readonly id?: unknown;
    /** A `tool_use` block's tool name. */
    readonly name?: unknown;
    /** A `tool_use` block's input so far (`{}` in a stream: the pieces come as deltas). */
    readonly input?: unknown;
  };
  /** What a `content_block_delta` adds: `text_delta`, `input_json_delta` (`partial_json`), ... */
  readonly delta?: unknown;
  /** An `error` event's error. */
  readonly error?: unknown;
}

/** A message of the conversation, as the Messages API takes it. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | (AnthropicBlock | AnthropicToolResult)[];
}

/** A content block the model wrote: text, a tool_use, or another kind passed on as it came. */
export type AnthropicBlock = { type: string; [key: string]: unknown };

interface OpenBlock {
  block: AnthropicBlock;
  /** A tool_use block's input JSON, as its deltas wrote it. */
  json: string;
}

/**
 * Reads Anthropic Messages events: a `tool_use` block opened by `content_block_start` gets its
 * input as `input_json_delta` pieces and is whole at its `content_block_stop` (its arguments are
 * those pieces, or the block's own `input` when none came); `text_delta`s are text. At the end,
 * the item is the assistant message the next request sends back, its tool_use inputs parsed (a
 * call whose input is not JSON keeps `{}` there and fails as the engine says). An `error` event
 * errors the stream with what the provider said; so does a normal end inside a tool_use block,
 * and a tool_use block without its `id` or `name`.
 */
export class AnthropicReader implements StreamReader<AnthropicStreamEvent, AnthropicMessage> {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly content: AnthropicBlock[] = [];
  private messageId = 'message';

  read(event: AnthropicStreamEvent): readonly ModelPart<AnthropicMessage>[] {
    switch (eventType(event)) {
      case 'message_start':
        this.messageId = stringOf(objectOf(event.message)?.id) ?? 'message';
        return [];
      case 'content_block_start':
        return this.start(event);
      case 'content_block_delta':
        return this.delta(event);
      case 'content_block_stop':
        return this.stop(event.index);
      case 'error':
        throw streamBroke('Anthropic', objectOf(event.error) ?? event);
      default:
        return [];
    }
  }

  end(): readonly ModelPart<AnthropicMessage>[] {
    for (const { block } of this.blocks.values()) {
      if (block.type === 'tool_use')
        throw new Error(
          `Anthropic stream ended inside tool_use block "${String(block['id'])}" (${String(block['name'])}): its input never completed`,
        );
    }
    return [{ type: 'items', items: [{ role: 'assistant', content: this.content }] }];
  }

  private start(event: AnthropicStreamEvent): readonly ModelPart<AnthropicMessage>[] {
    const opened = objectOf(event.content_block);
    if (opened === undefined || typeof event.index !== 'number') return [];
    const block: AnthropicBlock = { ...opened, type: String(opened.type) };
    if (block.type === 'text') block['text'] = String(block['text'] ?? '');
    this.blocks.set(event.index, { block, json: '' });
    if (block.type !== 'tool_use') return [];
    const id = stringOf(block['id']);
    const name = stringOf(block['name']);
    if (id === undefined || name === undefined)
      throw new Error(
        `Anthropic stream: a tool_use block without ${id === undefined ? 'id' : 'name'}`,
      );
    return [{ type: 'call-start', callId: id, name }];
  }

  private delta(event: AnthropicStreamEvent): readonly ModelPart<AnthropicMessage>[] {
    const open = this.blocks.get(event.index ?? -1);
    const delta = objectOf(event.delta);
    if (open === undefined || delta === undefined) return [];
    if (delta.type === 'text_delta') {
      const text = stringOf(delta.text) ?? '';
      open.block['text'] = String(open.block['text'] ?? '') + text;
      return [{ type: 'text-delta', id: `${this.messageId}:${event.index}`, delta: text }];
    }
    if (delta.type === 'input_json_delta') {
      const piece = stringOf(delta.partial_json) ?? '';
      open.json += piece;
      return [{ type: 'call-delta', callId: String(open.block['id']), delta: piece }];
    }
    appendDelta(open.block, delta);
    return [];
  }

  private stop(index: number | undefined): readonly ModelPart<AnthropicMessage>[] {
    const open = this.blocks.get(index ?? -1);
    if (open === undefined) return [];
    this.blocks.delete(index ?? -1);
    const { block } = open;
    this.content.push(block);
    if (block.type !== 'tool_use') return [];
    const args = open.json !== '' ? open.json : inputText(block['input']);
    block['input'] = parsedOr(args, {});
    const call = {
      type: 'function_call' as const,
      call_id: String(block['id']),
      name: String(block['name']),
      arguments: args,
      status: 'completed' as const,
    };
    return [{ type: 'call', call }];
  }
}

/** A block's own `input` as JSON text; "" (no arguments) when it has none or none JSON can hold. */
function inputText(input: unknown): string {
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return '';
  }
}

/** A thinking or signature delta, added to its block as the API sends it back. */
function appendDelta(block: AnthropicBlock, delta: Record<string, unknown>): void {
  for (const key of ['thinking', 'signature'] as const) {
    const piece = delta[key];
    if (typeof piece === 'string') block[key] = String(block[key] ?? '') + piece;
  }
}

function parsedOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}
