/**
 * The execution engine: the RxJS operators that run tool calls.
 *
 * @module agenttool/operators
 */
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
  type SettledResult,
} from './job.js';
export { executeBatch } from './execute-batch.js';
export { executeCalls } from './execute-calls.js';
export { batchResults } from './batch-results.js';
export { chains } from './chains.js';
export { jobsFromItems, missingTool } from './jobs-from-items.js';
export { toOutputItems } from './to-output-items.js';
export {
  endedCall,
  startedCall,
  type BatchOptions,
  type EndedCall,
  type ResumeLog,
  type StartedCall,
} from './resume-log.js';
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
export { executeBatchWithStarts } from './execute-batch-with-starts.js';
