/**
 * The `openai` SDK's Chat Completions types and the `@anthropic-ai/sdk` Messages types meet this
 * package's without a cast: tools into a request, an assistant message's calls in, the result
 * messages out into the next request. Checked by `npm run typecheck` (nothing here runs).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { expectTypeOf } from 'expect-type';
import {
  anthropicTools,
  chatCompletionsTools,
  jobsFromToolCalls,
  jobsFromToolUses,
  toToolMessages,
  toToolResults,
  type Job,
  type SettledResult,
  type ToolSet,
} from '../../index.js';

declare const toolSet: ToolSet;
declare const settled: SettledResult[];

// Chat Completions: tools, an assistant message in, tool messages out.
declare const openai: OpenAI;
declare const completion: OpenAI.Chat.Completions.ChatCompletion;
const message = completion.choices[0]!.message;
const jobs = jobsFromToolCalls(message, toolSet);
expectTypeOf(jobs).toEqualTypeOf<Job[]>();
const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
messages.push(message, ...toToolMessages(jobs, settled));
void openai.chat.completions.create({
  model: 'gpt-5',
  messages,
  tools: chatCompletionsTools(toolSet),
});
expectTypeOf(
  toToolMessages(jobs, settled),
).items.toExtend<OpenAI.Chat.Completions.ChatCompletionToolMessageParam>();

// Anthropic Messages: tools, tool_use blocks in, tool_result blocks out.
declare const anthropic: Anthropic;
declare const response: Anthropic.Messages.Message;
const uses = jobsFromToolUses(response.content, toolSet);
const history: Anthropic.Messages.MessageParam[] = [
  { role: 'assistant', content: response.content },
  { role: 'user', content: toToolResults(uses, settled) },
];
void anthropic.messages.create({
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: history,
  tools: anthropicTools(toolSet),
});
expectTypeOf(
  toToolResults(uses, settled),
).items.toExtend<Anthropic.Messages.ToolResultBlockParam>();
