import type { FunctionCallItem } from '../../lib/open-responses.js';
import type { ChatCompletionsToolCall } from '../chat-completions.js';
import { objectOf, stringOf, type ModelPart, type StreamReader } from './parts.js';

/**
 * A chunk of a Chat Completions stream (`chat.completions.create({ stream: true })`). Typed
 * structurally with only what is read, so the `openai` package's `ChatCompletionChunk` fits as
 * it is; every field is checked when read.
 */
export interface ChatCompletionsChunk {
  /** The completion's id, the same on every chunk. */
  readonly id?: string;
  /** The choices this chunk adds to; only the first choice (`index` 0) is read. */
  readonly choices?: readonly ChatCompletionsChunkChoice[] | null;
}

/** One choice of a chunk. */
export interface ChatCompletionsChunkChoice {
  /** Which choice this is: 0 for the first (the only one unless the request set `n`). */
  readonly index?: number;
  /** What this chunk adds to the choice's message. */
  readonly delta?: {
    /** A piece of the message's text. */
    readonly content?: string | null;
    /** Pieces of tool calls, each naming its call by `index`. */
    readonly tool_calls?: readonly ChatCompletionsToolCallDelta[] | null;
  } | null;
  /** Why the choice ended (`tool_calls`, `stop`, `length`, ...); null while it goes on. */
  readonly finish_reason?: string | null;
}

/** A piece of one tool call: the first carries its id and name, the rest its arguments. */
export interface ChatCompletionsToolCallDelta {
  /** The position of the call in the message: all pieces of a call share it. */
  readonly index: number;
  /** The call's id, on its first piece. */
  readonly id?: string | null;
  /** `function`, on its first piece. */
  readonly type?: string | null;
  /** The function's name (first piece) and a piece of its arguments' JSON text. */
  readonly function?: {
    /** The function's name, on the call's first piece. */
    readonly name?: string | null;
    /** A piece of the arguments' JSON text, appended to those before it. */
    readonly arguments?: string | null;
  } | null;
}

/** The assistant message a streamed completion adds to the conversation. */
export interface ChatCompletionsAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatCompletionsToolCall[];
}

/** The call being written: its index, and what its pieces said so far. */
interface OpenCall {
  readonly index: number;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  /** Whether its `call-start` part went out (once it had an id and a name). */
  started: boolean;
}

type Part = ModelPart<ChatCompletionsAssistantMessage>;

/**
 * Reads Chat Completions chunks. A call has no end of its own: its pieces arrive by `index`, the
 * first with the call's `id` and `function.name`, the rest appending to `function.arguments`. A
 * call is whole when a piece of a higher index arrives, when the choice's `finish_reason` is set,
 * or when the stream ends normally; a stream that errors first leaves it unfinished, never
 * emitted. Only the first choice (`index` 0) is read; its content deltas are text. At the end,
 * the item is the assistant message the next request sends back. A piece that goes back to a
 * call already complete, or a call without an id or a name, errors the stream.
 */
export class ChatCompletionsReader implements StreamReader<
  ChatCompletionsChunk,
  ChatCompletionsAssistantMessage
> {
  private current: OpenCall | undefined;
  /** The highest index of a completed call: a piece for it or below comes too late. */
  private lastDone = -1;
  private readonly done: ChatCompletionsToolCall[] = [];
  private text = '';

  read(chunk: ChatCompletionsChunk): readonly Part[] {
    const choice = firstChoice(chunk);
    if (choice === undefined) return [];
    const parts: Part[] = [];
    const delta = objectOf(choice.delta);
    const content = stringOf(delta?.content);
    if (content !== undefined && content !== '') {
      this.text += content;
      parts.push({
        type: 'text-delta',
        id: stringOf(objectOf(chunk)?.id) ?? 'text',
        delta: content,
      });
    }
    const pieces = delta?.tool_calls;
    for (const piece of Array.isArray(pieces) ? (pieces as unknown[]) : [])
      this.piece(piece, parts);
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) this.close(parts);
    return parts;
  }

  end(): readonly Part[] {
    const parts: Part[] = [];
    this.close(parts);
    const message: ChatCompletionsAssistantMessage = {
      role: 'assistant',
      content: this.text === '' ? null : this.text,
      ...(this.done.length === 0 ? {} : { tool_calls: this.done }),
    };
    parts.push({ type: 'items', items: [message] });
    return parts;
  }

  /** Adds one piece to its call, completing the call before it when it starts a new one. */
  private piece(piece: unknown, parts: Part[]): void {
    const call = this.callOf(piece, parts);
    const fields = piece as ChatCompletionsToolCallDelta;
    const fn = objectOf(fields.function);
    call.id ??= stringOf(fields.id) || undefined;
    call.name ??= stringOf(fn?.name) || undefined;
    const args = stringOf(fn?.arguments) ?? '';
    call.arguments += args;
    if (!call.started && call.id !== undefined && call.name !== undefined) {
      call.started = true;
      parts.push({ type: 'call-start', callId: call.id, name: call.name });
      if (call.arguments !== '')
        parts.push({ type: 'call-delta', callId: call.id, delta: call.arguments });
    } else if (call.started && args !== '') {
      parts.push({ type: 'call-delta', callId: call.id!, delta: args });
    }
  }

  /** The call `piece` adds to: the open one, or a new one (completing the open one). */
  private callOf(piece: unknown, parts: Part[]): OpenCall {
    const index = objectOf(piece)?.index;
    if (typeof index !== 'number' || !Number.isInteger(index))
      throw new Error('Chat Completions stream: a tool call piece without an index');
    if (this.current?.index === index) return this.current;
    if (index <= this.lastDone || (this.current !== undefined && index < this.current.index))
      throw new Error(
        `Chat Completions stream: a piece of tool call ${index} came after a later call had started`,
      );
    this.close(parts);
    return (this.current = {
      index,
      id: undefined,
      name: undefined,
      arguments: '',
      started: false,
    });
  }

  /** Completes the open call, if any. */
  private close(parts: Part[]): void {
    const call = this.current;
    if (call === undefined) return;
    this.current = undefined;
    this.lastDone = call.index;
    if (call.id === undefined || call.name === undefined)
      throw new Error(
        `Chat Completions stream: tool call ${call.index} has no ${call.id === undefined ? 'id' : 'name'}`,
      );
    this.done.push({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    });
    const item: FunctionCallItem = {
      type: 'function_call',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    };
    parts.push({ type: 'call', call: item });
  }
}

function firstChoice(chunk: ChatCompletionsChunk): ChatCompletionsChunkChoice | undefined {
  const choices = objectOf(chunk)?.choices;
  if (!Array.isArray(choices)) return undefined;
  return (choices as unknown[]).find(
    (choice): choice is ChatCompletionsChunkChoice => (objectOf(choice)?.index ?? 0) === 0,
  );
}
