import type {
  FunctionCallOutputItem,
  InputMessageItem,
  OutputItem,
} from '../lib/open-responses.js';
import { toToolResults } from './anthropic-messages.js';
import {
  toToolMessages,
  type ChatCompletionsToolMessage,
  type ChatCompletionsUserMessage,
} from './chat-completions.js';
import type { Job, SettledResult } from './job.js';
import {
  AnthropicReader,
  type AnthropicMessage,
  type AnthropicStreamEvent,
} from './model-stream/anthropic.js';
import {
  ChatCompletionsReader,
  type ChatCompletionsAssistantMessage,
  type ChatCompletionsChunk,
} from './model-stream/chat-completions.js';
import type { StreamReader } from './model-stream/parts.js';
import { ResponsesReader, type ResponsesStreamEvent } from './model-stream/responses.js';
import { toOutputItems } from './to-output-items.js';

/** An item of an Open Responses conversation: what a request's `input` holds. */
export type ResponsesItem =
  | OutputItem
  | FunctionCallOutputItem
  | InputMessageItem
  | { readonly role: string; readonly content: unknown; readonly type?: 'message' };

/** A message of a Chat Completions conversation. */
export type ChatCompletionsMessage =
  | ChatCompletionsAssistantMessage
  | ChatCompletionsToolMessage
  | ChatCompletionsUserMessage
  | { readonly role: 'system' | 'developer' | 'user'; readonly content: unknown };

/**
 * The providers' streams {@link agentLoop} reads, by its `format` option: the events each
 * streams, and the items its conversation is made of.
 */
export interface LoopFormats {
  /** OpenAI Responses (`client.responses.create({ stream: true })`), the default. */
  responses: { event: ResponsesStreamEvent; item: ResponsesItem };
  /** Chat Completions (`client.chat.completions.create({ stream: true })`). */
  'chat-completions': { event: ChatCompletionsChunk; item: ChatCompletionsMessage };
  /** Anthropic Messages (`client.messages.create({ stream: true })`). */
  anthropic: { event: AnthropicStreamEvent; item: AnthropicMessage };
}

/** A format's name. */
export type LoopFormat = keyof LoopFormats;

/** What the loop needs of a format: a reader per stream, and the items a turn's results make. */
export interface FormatCodec<E, I> {
  reader(): StreamReader<E, I>;
  outputs(jobs: readonly Job[], settled: readonly SettledResult[]): I[];
}

const responses: FormatCodec<ResponsesStreamEvent, ResponsesItem> = {
  reader: () => new ResponsesReader(),
  outputs: (jobs, settled) => toOutputItems(jobs, settled),
};

const chatCompletions: FormatCodec<ChatCompletionsChunk, ChatCompletionsMessage> = {
  reader: () => new ChatCompletionsReader(),
  outputs: (jobs, settled) => toToolMessages(jobs, settled),
};

const anthropic: FormatCodec<AnthropicStreamEvent, AnthropicMessage> = {
  reader: () => new AnthropicReader(),
  outputs: (jobs, settled) =>
    jobs.length === 0 ? [] : [{ role: 'user', content: toToolResults(jobs, settled) }],
};

const codecs = { responses, 'chat-completions': chatCompletions, anthropic };

/** The codec of a format; an unknown name throws a RangeError naming the three. */
export function codecOf<F extends LoopFormat>(
  format: F,
): FormatCodec<LoopFormats[F]['event'], LoopFormats[F]['item']> {
  if (!Object.hasOwn(codecs, format)) {
    throw new RangeError(
      `agentLoop: format must be "responses", "chat-completions" or "anthropic", not ${JSON.stringify(format)}`,
    );
  }
  return codecs[format] as unknown as FormatCodec<LoopFormats[F]['event'], LoopFormats[F]['item']>;
}
