/**
 * The streams of the `openai` and `@anthropic-ai/sdk` clients go into the `callsFrom...Stream`
 * functions without a cast, as the SDK returns them or as an Observable of their events, and what
 * comes out is what `jobsFromItems` takes. Checked by `npm run typecheck` (nothing here runs).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { Observable } from 'rxjs';
import { expectTypeOf } from 'expect-type';
import {
  callsFromAnthropicStream,
  callsFromChatCompletionsStream,
  callsFromResponsesStream,
  jobsFromItems,
  type FunctionCallItem,
  type ToolSet,
} from '../../index.js';

declare const toolSet: ToolSet;
declare const openai: OpenAI;
declare const anthropic: Anthropic;

const responses = await openai.responses.create({ model: 'gpt-5', input: 'hi', stream: true });
expectTypeOf(callsFromResponsesStream(responses)).toEqualTypeOf<Observable<FunctionCallItem>>();
declare const responseEvents: Observable<OpenAI.Responses.ResponseStreamEvent>;
callsFromResponsesStream(responseEvents).subscribe((call) => jobsFromItems([call], toolSet));

const chunks = await openai.chat.completions.create({ model: 'gpt-5', messages: [], stream: true });
expectTypeOf(callsFromChatCompletionsStream(chunks)).toEqualTypeOf<Observable<FunctionCallItem>>();
declare const chunkEvents: Observable<OpenAI.Chat.Completions.ChatCompletionChunk>;
callsFromChatCompletionsStream(chunkEvents);

const raw = await anthropic.messages.create({
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [],
  stream: true,
});
expectTypeOf(callsFromAnthropicStream(raw)).toEqualTypeOf<Observable<FunctionCallItem>>();
callsFromAnthropicStream(
  anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [] }),
);
declare const messageEvents: Observable<Anthropic.Messages.RawMessageStreamEvent>;
callsFromAnthropicStream(messageEvents);
