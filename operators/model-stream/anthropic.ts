import type { AnthropicToolResult } from '../anthropic-messages.js';
import { eventType, type ModelPart, type StreamReader } from './parts.js';

/**
 * A Messages stream event as the reader takes it, typed structurally so `@anthropic-ai/sdk`'s
 * `RawMessageStreamEvent` fits as it is. Every other event type is skipped.
 */
export type AnthropicStreamEvent =
  | { readonly type: 'message_start'; readonly message?: { readonly id?: string } }
  | {
      readonly type: 'content_block_start';
      readonly index: number;
      readonly content_block: { readonly type: string; readonly [key: string]: unknown };
    }
  | {
      readonly type: 'content_block_delta';
      readonly index: number;
      readonly delta: { readonly type: string; readonly [key: string]: unknown };
    }
  | { readonly type: 'content_block_stop'; readonly index: number }
  | { readonly type: 'error'; readonly error?: { readonly message?: string } }
  | { readonly type: string };

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
 * input as `input_json_delta` pieces and is whole at its `content_block_stop`; `text_delta`s are
 * text. At the end, the item is the assistant message the next request sends back, its tool_use
 * inputs parsed (a call whose input is not JSON keeps `{}` there and fails as the engine says).
 * An `error` event errors the stream.
 */
export class AnthropicReader implements StreamReader<AnthropicStreamEvent, AnthropicMessage> {
  private readonly blocks = new Map<number, OpenBlock>();
  private readonly content: AnthropicBlock[] = [];
  private messageId = 'message';

  read(event: AnthropicStreamEvent): readonly ModelPart<AnthropicMessage>[] {
    switch (eventType(event)) {
      case 'message_start':
        this.messageId = String((event as { message?: { id?: string } }).message?.id ?? 'message');
        return [];
      case 'content_block_start':
        return this.start(event as { index: number; content_block: AnthropicBlock });
      case 'content_block_delta':
        return this.delta(event as { index: number; delta: AnthropicBlock });
      case 'content_block_stop':
        return this.stop((event as { index: number }).index);
      case 'error': {
        const said = (event as { error?: { message?: unknown } }).error?.message;
        throw new Error(`model stream: error${typeof said === 'string' ? `: ${said}` : ''}`);
      }
      default:
        return [];
    }
  }

  end(): readonly ModelPart<AnthropicMessage>[] {
    return [{ type: 'items', items: [{ role: 'assistant', content: this.content }] }];
  }

  private start(event: {
    index: number;
    content_block: AnthropicBlock;
  }): readonly ModelPart<AnthropicMessage>[] {
    const block = { ...event.content_block };
    if (block.type === 'text') block['text'] = String(block['text'] ?? '');
    this.blocks.set(event.index, { block, json: '' });
    if (block.type !== 'tool_use') return [];
    return [
      { type: 'call-start', callId: String(block['id'] ?? ''), name: String(block['name'] ?? '') },
    ];
  }

  private delta(event: {
    index: number;
    delta: AnthropicBlock;
  }): readonly ModelPart<AnthropicMessage>[] {
    const open = this.blocks.get(event.index);
    if (open === undefined) {
      throw new TypeError(
        `Anthropic stream: content_block_delta for block ${event.index}, never started`,
      );
    }
    const { delta } = event;
    if (delta.type === 'text_delta') {
      const text = String(delta['text'] ?? '');
      open.block['text'] = String(open.block['text']) + text;
      return [{ type: 'text-delta', id: `${this.messageId}:${event.index}`, delta: text }];
    }
    if (delta.type === 'input_json_delta') {
      const piece = String(delta['partial_json'] ?? '');
      open.json += piece;
      return [{ type: 'call-delta', callId: String(open.block['id'] ?? ''), delta: piece }];
    }
    appendDelta(open.block, delta);
    return [];
  }

  private stop(index: number): readonly ModelPart<AnthropicMessage>[] {
    const open = this.blocks.get(index);
    if (open === undefined) return [];
    this.blocks.delete(index);
    const { block } = open;
    this.content.push(block);
    if (block.type !== 'tool_use') return [];
    const args = open.json === '' ? JSON.stringify(block['input'] ?? {}) : open.json;
    block['input'] = parsedOr(args, {});
    const call = {
      type: 'function_call' as const,
      call_id: String(block['id'] ?? ''),
      name: String(block['name'] ?? ''),
      arguments: args,
      status: 'completed' as const,
    };
    return [{ type: 'call', call }];
  }
}

/** A thinking or signature delta, added to its block as the API sends it back. */
function appendDelta(block: AnthropicBlock, delta: AnthropicBlock): void {
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
