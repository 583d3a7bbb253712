/**
 * The tool contract.
 *
 * @module
 */
export type {
  Annotations,
  Confinement,
  ElicitField,
  Elicitor,
  ElicitFormRequest,
  ElicitRequest,
  ElicitResult,
  ElicitSchema,
  ElicitUrlRequest,
  JsonArguments,
  ProgressInfo,
  ProgressUpdate,
  RemoteListing,
  Replay,
  ResourceFunction,
  Session,
  Tool,
  ToolCall,
  TraceContext,
  ToolContext,
  ToolEvent,
  ToolResult,
} from './contract.js';
export { annotationsOf, confinedBy, isSequential, isStrict, resourceOf } from './contract.js';
export { elicitChoices, usableBounds, type ElicitChoice } from './elicit-choices.js';
export { elicitUrlProblem, elicitUrlView, type ElicitUrlView } from './elicit-url.js';
export { idempotencyKeyOf, replayOf } from './replay.js';
export { unwrap, wrap, type WrapOverrides } from './wrap.js';
export type {
  ContentPart,
  FunctionCallItem,
  FunctionCallOutputItem,
  FunctionTool,
  InputFile,
  InputImage,
  InputText,
  JsonSchema,
  OutputItem,
  OtherItem,
  ToolOutput,
} from './open-responses.js';
export {
  AgentToolError,
  CancelledError,
  NoToolError,
  NotApprovedError,
  NotReplayedError,
  RecordError,
  SchemaError,
  TimeoutError,
  ToolPanicError,
  ValidationError,
  type ErrorCode,
} from './errors.js';
export type { Recordable, Recorder, ToolRecord } from './records.js';
export {
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_MAX_RECORDS,
  isRecordable,
  RECORD_NS,
  recordOf,
} from './records.js';
export {
  errorResult,
  filePart,
  imagePart,
  isMadeResult,
  parts,
  partsResult,
  progressResult,
  textPart,
  textResult,
  toResult,
  type ResultExtras,
} from './result.js';
export { CallContext, type CallContextOptions, type ProgressSink } from './context.js';
export { DEFAULT_MAX_QUESTIONS } from './open-question.js';
export { definition, FUNCTION_NAME, NO_ARGUMENTS, ToolSet } from './tool-set.js';
export { rawTool, type RawToolDefinition, type ToolProperties } from './raw-tool.js';
export {
  checksOwnArguments,
  tool,
  type ArgsOf,
  type ToolDefinition,
  type ToolReturn,
} from './tool.js';
export {
  compileValidator,
  DEFAULT_LIMITS,
  zodValidationError,
  type ArgumentLimits,
  type ArgumentValidator,
  type PatternEngine,
  type ValidatorOptions,
} from './validation/validation.js';
export {
  compileZodSchema,
  isZodSchema,
  schemaOf,
  type AnyZodSchema,
  type CompiledZodSchema,
  type SchemaOptions,
} from './schema/schema.js';
export { registerZod3 } from './schema/zod3.js';
export { registerLinearPatterns } from './validation/linear-regexp.js';
