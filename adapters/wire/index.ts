/**
 * agenttool on the wire (`agenttool/wire`): a model loop's events (`agentLoop`) as the streams
 * chat fronts read, the AI SDK's UI message stream and AG-UI's events, and over HTTP as
 * server-sent events. No dependency: the protocols' shapes are the library's own types (checked
 * against the SDKs' in the type tests), and the HTTP helpers use the web `Response` or any object
 * shaped like Node's `ServerResponse`. See docs/loop.md, "On the wire".
 *
 * @module
 */
// The AI SDK's UI message stream (`useChat`, `readUIMessageStream`).
export { toUIMessageStream, type UIMessageStreamOptions } from './ui-message-stream.js';
export {
  pipeUIMessageStream,
  uiMessageStreamResponse,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageResponseOptions,
} from './ui-message-http.js';
export {
  QUESTION_DATA_TYPE,
  type UIFinishReason,
  type UIMessageChunk,
} from './ui-message-chunk.js';
export { approvalResponses } from './approval-responses.js';
// AG-UI 1.0 (`@ag-ui/client`'s HttpAgent, CopilotKit).
export { toAgUiEvents, type AgUiRunOptions } from './ag-ui.js';
export {
  agUiResponse,
  pipeAgUiEvents,
  AG_UI_HEADERS,
  type AgUiResponseOptions,
} from './ag-ui-http.js';
export {
  APPROVAL_EVENT,
  PROGRESS_ACTIVITY,
  QUESTION_EVENT,
  type AgUiEvent,
  type ProgressContent,
} from './ag-ui-event.js';
// What both carry of a call's question, and the Node response the pipes write to.
export type { ApprovalAnswer, WireQuestion } from './loop-encoder.js';
export type { ServerResponseLike } from './sse.js';
// The questions a front answers by their id on the wire.
export { WireQuestions } from './wire-questions.js';
