/**
 * The execution engine: the RxJS operators that run tool calls.
 *
 * @module agenttool/operators
 */
// A batch's jobs, options and events.
export {
  DEFAULT_MAX_PARALLEL,
  type Approval,
  type ExecuteOptions,
  type ExecutionErrorEvent,
  type ExecutionEvent,
  type ExecutionProgressEvent,
  type ExecutionQuestionEvent,
  type ExecutionResultEvent,
  type Job,
  type Reviewed,
  type SettledResult,
  type TelemetryOptions,
} from './job.js';
// Running calls: a batch as it is, calls as they arrive, and just the results.
export { executeBatch } from './execute-batch.js';
export { executeCalls } from './execute-calls.js';
export { batchResults } from './batch-results.js';
export { settledOf } from './settled-of.js';
// Arguments a person corrected, checked as the engine will before the approval is given.
export { checkEditedArgs } from './internal/job-approval.js';
// What a batch will do before it runs: its resource chains.
export { chains } from './chains.js';
// From a model's turn to jobs, and from results to the items of its next request.
export { jobsFromItems, missingTool } from './jobs-from-items.js';
export { toOutputItems } from './to-output-items.js';
// Detached calls: what the model reads now, the turn without waiting, the result later.
export { DETACHED_OUTPUT } from './detached-output.js';
export { detachedResultItem } from './detached-result-item.js';
export { turnItems } from './turn-items.js';
// The same for Chat Completions and for Anthropic's Messages: tools, calls in, results out.
export {
  chatCompletionsTools,
  detachedResultMessage,
  jobsFromToolCalls,
  toToolMessages,
  type ChatCompletionsFunctionCall,
  type ChatCompletionsTextPart,
  type ChatCompletionsTool,
  type ChatCompletionsToolCall,
  type ChatCompletionsToolMessage,
  type ChatCompletionsUserMessage,
} from './chat-completions.js';
export {
  anthropicTools,
  detachedResultBlocks,
  jobsFromToolUses,
  toToolResults,
  type AnthropicBase64Source,
  type AnthropicContentBlock,
  type AnthropicDocumentBlock,
  type AnthropicImageBlock,
  type AnthropicInputSchema,
  type AnthropicResultBlock,
  type AnthropicTextBlock,
  type AnthropicUrlSource,
  type AnthropicTool,
  type AnthropicToolResult,
} from './anthropic-messages.js';
// Calls from a provider's stream, each the moment its arguments are complete.
export {
  callsFromAnthropicStream,
  callsFromChatCompletionsStream,
  callsFromResponsesStream,
} from './model-stream/calls-from.js';
// Resuming an interrupted batch: the records a run leaves, read back.
export {
  endedCall,
  recordedCall,
  startedCall,
  RESUME_MISMATCH_NS,
  type BatchOptions,
  type CallFingerprint,
  type EndedCall,
  type RecordedCall,
  type ResumeLog,
  type StartedCall,
} from './resume-log.js';
// A batch as a view shows it: one state per call, folded from the events.
export {
  batchState,
  initialCallStates,
  outputPreview,
  reduceCallStates,
  type BatchStateInput,
  type BatchStateOptions,
  type CallApproval,
  type CallPhase,
  type CallStart,
  type CallState,
} from './batch-state.js';
// The model loop: a conversation's turns, each call started the moment the model has written it.
export { agentLoop, DEFAULT_MAX_TURNS, type AgentLoopOptions } from './agent-loop.js';
export type {
  LoopApproval,
  LoopCall,
  LoopCallDelta,
  LoopCallEvent,
  LoopCallStart,
  LoopEnd,
  LoopEvent,
  LoopTextDelta,
  LoopTurnEnd,
  LoopTurnStart,
} from './loop-events.js';
export type {
  ChatCompletionsMessage,
  LoopFormat,
  LoopFormats,
  ResponsesItem,
} from './loop-formats.js';
export type { ModelPart, ProviderStream } from './model-stream/parts.js';
export type { ResponsesStreamEvent } from './model-stream/responses.js';
export type {
  ChatCompletionsAssistantMessage,
  ChatCompletionsChunk,
  ChatCompletionsChunkChoice,
  ChatCompletionsToolCallDelta,
} from './model-stream/chat-completions.js';
export type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicStreamEvent,
} from './model-stream/anthropic.js';
// OpenTelemetry for a bundle that carries its own API (the package root in Node finds it).
export { registerOpenTelemetry } from './telemetry.js';
// executeBatch with a mark each time a call starts: what batchState needs to show it leave waiting.
export { executeBatchWithStarts } from './execute-batch-with-starts.js';
