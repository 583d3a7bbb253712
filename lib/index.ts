/**
 * The tool contract.
 *
 * @module
 */
// The contract: what a tool is, what a call carries and what it gives back. Every tool, local or
// remote, and every runner (the engine, the MCP server) speaks these types.
export type {
  Annotations,
  Confinement,
  CountedResource,
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
  ResourceName,
  Session,
  Tool,
  ToolCall,
  TraceContext,
  ToolContext,
  ToolEvent,
  ToolResult,
} from './contract.js';
// A tool's optional properties, each read with its default (so a caller never checks for undefined).
export {
  annotationsOf,
  capacityOf,
  confinedBy,
  isSequential,
  isStrict,
  resourceOf,
} from './contract.js';
// For views that show a tool's question: a field's choices and usable bounds, a page's URL and host.
export { elicitChoices, usableBounds, type ElicitChoice } from './elicit-choices.js';
export { elicitUrlProblem, elicitUrlView, type ElicitUrlView } from './elicit-url.js';
// Resuming after a crash: the key a side effect is deduplicated by, and whether a call may run again.
export { idempotencyKeyOf, replayOf } from './replay.js';
// Decorating a tool (logging, metrics, retries) without losing any of its properties.
export { unwrap, wrap, type WrapOverrides } from './wrap.js';
// Open Responses: the items a model's turn holds and the ones its next request takes.
export type {
  ContentPart,
  FunctionCallItem,
  FunctionCallOutputItem,
  FunctionTool,
  InputFile,
  InputImage,
  InputMessageItem,
  InputText,
  JsonSchema,
  OutputItem,
  OtherItem,
  ToolOutput,
} from './open-responses.js';
// Errors with stable codes: what a call fails with, and what misuse throws.
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
// Records: durable handles to side effects a call starts, written through the application's recorder.
export type { Recordable, Recorder, ToolRecord } from './records.js';
export { DEFAULT_MAX_RECORD_BYTES, DEFAULT_MAX_RECORDS, RECORD_NS, recordOf } from './records.js';
export type { ResumedRun } from './steps.js';
export { registerSteps, STEP_NS } from './steps.js';
// Building results: text, content parts, details for the application, and errors as the model reads them.
export {
  errorResult,
  filePart,
  imagePart,
  parts,
  partsResult,
  textPart,
  textResult,
  toResult,
  type ResultExtras,
} from './result.js';
// Running a tool outside the engine (a server, a test): the context a call gets.
export { CallContext, type CallContextOptions, type ProgressSink } from './context.js';
export { DEFAULT_MAX_QUESTIONS } from './open-question.js';
// Tool sets: lookup by name, and the definitions a model is given.
export { definition, NO_ARGUMENTS, ToolSet } from './tool-set.js';
// Making tools: rawTool for schemas from elsewhere, tool() for zod-typed functions.
export { rawTool, type RawToolDefinition, type ToolProperties } from './raw-tool.js';
export {
  tool,
  type ArgsOf,
  type ObjectArguments,
  type ToolDefinition,
  type ToolReturn,
} from './tool.js';
export { registerStandardSchema } from './schema/standard.js';
export type {
  StandardIssue,
  StandardJsonSchemaConverter,
  StandardPathSegment,
  StandardProps,
  StandardResult,
  StandardSchemaLike,
  StandardTypes,
} from './schema/standard.js';
// The types of the options `tool()` and the MCP server take; the functions that check arguments
// and read schemas outside `tool()` are in `agenttool/schema`.
export type {
  ArgumentLimits,
  ArgumentValidator,
  PatternEngine,
  ValidatorOptions,
} from './validation/validation.js';
export {
  schemaOf,
  type AnyZodSchema,
  type CompiledZodSchema,
  type SchemaOptions,
} from './schema/schema.js';
// What the Node entry registers itself and a browser bundle opts into (see index.ts, browser.ts).
export { registerZod3 } from './schema/zod3.js';
export { registerLinearPatterns } from './validation/linear-regexp.js';
