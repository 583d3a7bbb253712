import type { FunctionCallItem } from '../../lib/open-responses.js';
import type { ChatCompletionsToolCall } from '../chat-completions.js';
import type { ModelPart, StreamReader } from './parts.js';

/**
 * A Chat Completions stream chunk as the reader takes it, typed structurally so the `openai`
 * package's `ChatCompletionChunk` fits as it is. Only the first choice is read.
 */
export interface ChatCompletionsChunk {
  readonly id?: string;
  readonly choices?: readonly {
    readonly delta?: {
      readonly content?: string | null;
      readonly tool_calls?: readonly ChatCompletionsToolCallDelta[] | null;
    } | null;
    readonly finish_reason?: string | null;
  }[];
}

/** A piece of a tool call: the first names it, the later ones add to its arguments. */
export interface ChatCompletionsToolCallDelta {
  readonly index: number;
  readonly id?: string | null;
  readonly function?: { readonly name?: string | null; readonly arguments?: string | null } | null;
}

/** The assistant message a streamed completion adds to the conversation. */
export interface ChatCompletionsAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatCompletionsToolCall[];
}

interface OpenCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Reads Chat Completions chunks: tool calls arrive as deltas by `index`, the first carrying the
 * id and name, the later ones pieces of the arguments. A call is whole when a call of a higher
 * index begins, when the choice has a `finish_reason`, or when the stream ends normally; a
 * stream that errors first leaves it unfinished, never emitted. Content deltas are text. At the
 * end, the item is the assistant message the next request sends back.
 */
export class ChatCompletionsReader implements StreamReader<
  ChatCompletionsChunk,
  ChatCompletionsAssistantMessage
> {
  private readonly open = new Map<number, OpenCall>();
  private readonly done: ChatCompletionsToolCall[] = [];
  private text = '';

  read(chunk: ChatCompletionsChunk): readonly ModelPart<ChatCompletionsAssistantMessage>[] {
    const choice = chunk?.choices?.[0];
    if (choice === undefined) return [];
    const parts: ModelPart<ChatCompletionsAssistantMessage>[] = [];
    const content = choice.delta?.content;
    if (typeof content === 'string' && content !== '') {
      this.text += content;
      parts.push({ type: 'text-delta', id: String(chunk.id ?? 'text'), delta: content });
    }
    for (const delta of choice.delta?.tool_calls ?? []) this.readCall(delta, parts);
    if (typeof choice.finish_reason === 'string') this.closeBelow(Infinity, parts);
    return parts;
  }

  end(): readonly ModelPart<ChatCompletionsAssistantMessage>[] {
    const parts: ModelPart<ChatCompletionsAssistantMessage>[] = [];
    this.closeBelow(Infinity, parts);
    const message: ChatCompletionsAssistantMessage = {
      role: 'assistant',
      content: this.text === '' ? null : this.text,
      ...(this.done.length === 0 ? {} : { tool_calls: this.done }),
    };
    parts.push({ type: 'items', items: [message] });
    return parts;
  }

  private readCall(
    delta: ChatCompletionsToolCallDelta,
    parts: ModelPart<ChatCompletionsAssistantMessage>[],
  ): void {
    if (!Number.isInteger(delta?.index)) {
      throw new TypeError('Chat Completions stream: a tool_calls delta without an integer index');
    }
    let call = this.open.get(delta.index);
    if (call === undefined) {
      this.closeBelow(delta.index, parts);
      call = { id: String(delta.id ?? ''), name: String(delta.function?.name ?? ''), args: '' };
      this.open.set(delta.index, call);
      parts.push({ type: 'call-start', callId: call.id, name: call.name });
    }
    const piece = delta.function?.arguments;
    if (typeof piece === 'string' && piece !== '') {
      call.args += piece;
      parts.push({ type: 'call-delta', callId: call.id, delta: piece });
    }
  }

  /** Ends every open call of an index below `index`, in index order. */
  private closeBelow(index: number, parts: ModelPart<ChatCompletionsAssistantMessage>[]): void {
    const ending = [...this.open.keys()].filter((i) => i < index).sort((a, b) => a - b);
    for (const i of ending) {
      const call = this.open.get(i)!;
      this.open.delete(i);
      this.done.push({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.args },
      });
      const item: FunctionCallItem = {
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: call.args,
        status: 'completed',
      };
      parts.push({ type: 'call', call: item });
    }
  }
}
