/**
 * Calls from a provider's stream, as they complete: the function_call items of an Open
 * Responses, Chat Completions or Anthropic Messages stream, each emitted the moment its
 * arguments are complete (docs/loop.md).
 *
 * @module
 */
export { type ProviderStream } from './stream-calls.js';
export {
  callsFromResponsesStream,
  type ResponsesStreamEvent,
} from './calls-from-responses-stream.js';
export {
  callsFromChatCompletionsStream,
  type ChatCompletionsChunk,
  type ChatCompletionsChunkChoice,
  type ChatCompletionsToolCallDelta,
} from './calls-from-chat-completions-stream.js';
export {
  callsFromAnthropicStream,
  type AnthropicStreamEvent,
} from './calls-from-anthropic-stream.js';
