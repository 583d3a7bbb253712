/**
 * Error classes with stable codes. Tool failures are values the model sees (a final event with an
 * error, rendered by {@link errorResult}); exceptions are for programmer misuse, such as a schema
 * that cannot be expressed or a duplicate tool name. A stack never reaches the model.
 *
 * @module
 */

/** The stable codes of this package's errors. */
export type ErrorCode =
  | 'invalid_arguments'
  | 'tool_panic'
  | 'cancelled'
  | 'timeout'
  | 'no_tool'
  | 'invalid_schema'
  | 'not_replayed'
  | 'not_approved'
  | 'invalid_record';

/** Base class of every error this package raises; `code` is stable across versions. */
export class AgentToolError extends Error {
  /** What kind of error this is; stable across versions, unlike the message. */
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/**
 * Arguments that do not satisfy the schema the model saw. The message is one line, phrased for the
 * model to retry on: `invalid arguments: <path>: <problem>`, or `invalid arguments: <problem>` at
 * the root.
 */
export class ValidationError extends AgentToolError {
  /** Where the first problem is: "" for the root, otherwise `a.b[2]`. */
  readonly path: string;
  /** The problem alone, without the prefix or the path. */
  readonly detail: string;
  constructor(path: string, detail: string) {
    super('invalid_arguments', `invalid arguments: ${path === '' ? '' : `${path}: `}${detail}`);
    this.path = path;
    this.detail = detail;
  }
}

/**
 * A tool broke the contract: its execute threw instead of returning an observable, its observable
 * completed without a final event, or it threw a value that is not an Error. The message is one
 * line; the thrown value and its stack stay on the error for the application.
 */
export class ToolPanicError extends AgentToolError {
  /** The tool's name. */
  readonly tool: string;
  /** What was thrown, or undefined when the tool completed without a final event. */
  readonly value: unknown;
  constructor(tool: string, value: unknown, message?: string) {
    super('tool_panic', `tool "${tool}" panicked: ${oneLine(message ?? describeThrown(value))}`);
    this.tool = tool;
    this.value = value;
    if (value instanceof Error && value.stack !== undefined) this.stack = value.stack;
  }
}

/** The call was cancelled before it finished: by an aborted signal, or by its batch ending. */
export class CancelledError extends AgentToolError {
  constructor(message = 'call cancelled', options?: { cause?: unknown }) {
    super('cancelled', message, options);
  }
}

/** The call ran past the executor's `timeout` and was cancelled. */
export class TimeoutError extends AgentToolError {
  /** The limit that was exceeded, in milliseconds. */
  readonly timeout: number;
  constructor(timeout: number) {
    super('timeout', `call timed out after ${timeout} ms`);
    this.timeout = timeout;
  }
}

/** A function_call named a tool that is not in the set. */
export class NoToolError extends AgentToolError {
  /** The call's id. */
  readonly callId: string;
  /** The name the model asked for. */
  readonly toolName: string | undefined;
  constructor(callId: string, toolName?: string) {
    super(
      'no_tool',
      `no tool for call "${callId}"${toolName === undefined ? '' : `: unknown tool "${toolName}"`}`,
    );
    this.callId = callId;
    this.toolName = toolName;
  }
}

/**
 * A call of a resumed batch that an earlier run had started and not finished, and that is not run
 * again because its tool does not say a second run is safe. The message reads, for the model,
 * `call "<id>" was interrupted and not replayed: <reason>`, and for a call whose earlier run
 * finished steps (`context.step`), `call "<id>" was interrupted after steps "download", "unpack"
 * and not replayed: <reason>`.
 */
export class NotReplayedError extends AgentToolError {
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly toolName: string;
  /**
   * @param after What the earlier run finished, when it finished steps, as the message says it:
   *   ` after steps "download", "unpack"`.
   */
  constructor(callId: string, toolName: string, reason: string, after = '') {
    super('not_replayed', `call "${callId}" was interrupted${after} and not replayed: ${reason}`);
    this.callId = callId;
    this.toolName = toolName;
  }
}

/**
 * A call the application's `approve` refused before it ran (see `ExecuteOptions.approve`). The message,
 * for the model, is `call "<id>" was not approved`, or the application's reason when it gave one.
 */
export class NotApprovedError extends AgentToolError {
  /** The call's id. */
  readonly callId: string;
  /**
   * What the person who refused the call wrote beside the refusal (`Approval`'s `note`), which
   * reaches the model with this error's message (see `toOutputItems`); undefined for none.
   */
  readonly note: string | undefined;
  constructor(callId: string, reason?: string, options?: { cause?: unknown; note?: string }) {
    super(
      'not_approved',
      reason === undefined || reason === '' ? `call "${callId}" was not approved` : oneLine(reason),
      options,
    );
    this.callId = callId;
    this.note = options?.note;
  }
}

/**
 * A schema that cannot be served or validated, refused when the tool is built: recursive, a record
 * under strict mode, a type JSON Schema cannot express, or a JSON Schema that does not compile.
 */
export class SchemaError extends AgentToolError {
  /** The tool whose schema was refused ("" when none was named). */
  readonly tool: string;
  constructor(tool: string, problem: string) {
    super(
      'invalid_schema',
      tool === '' ? `schema: ${problem}` : `tool "${tool}": schema: ${problem}`,
    );
    this.tool = tool;
  }
}

/**
 * A record `context.record` refused before it reached the recorder: its namespace is not one the
 * grammar allows, its value does not serialise to JSON, or it would take the call past its cap of
 * records or bytes (see `recordOf` and `ExecuteOptions.maxRecords`). The message is one line,
 * starting `record`.
 */
export class RecordError extends AgentToolError {
  /** The cap that refused the record; undefined when its namespace or its value did. */
  readonly limit: 'maxRecords' | 'maxRecordBytes' | undefined;
  constructor(
    message: string,
    options?: { cause?: unknown; limit?: 'maxRecords' | 'maxRecordBytes' },
  ) {
    super('invalid_record', message, options);
    this.limit = options?.limit;
  }
}

/** The message of any thrown value, for an error built around it. */
export function describeThrown(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

/** Collapses a message onto one line: the model reads one line per failure. */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
