/**
 * The tool contract: what a tool is, what one call of it carries, and what it emits.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type { JsonSchema, ToolOutput } from './open-responses.js';
import type { Recordable, ToolRecord } from './records.js';
import type { ResumedRun } from './steps.js';
import type { ElicitRequest, ElicitResult } from './elicitation.js';
import type { ResourceFunction, ResourceName } from './resources.js';

// What a tool asks (elicitation.ts) and what it names as its resource (resources.ts) are parts of
// the contract, kept in files of their own and exported from here as before.
export type {
  ElicitField,
  ElicitFormRequest,
  ElicitRequest,
  ElicitResult,
  ElicitSchema,
  ElicitUrlRequest,
  Elicitor,
} from './elicitation.js';
export type {
  CountedResource,
  JsonArguments,
  ResourceFunction,
  ResourceName,
} from './resources.js';
export { capacityOf, checkedCapacity, namedResource, resourceOf } from './resources.js';

/** One invocation of a tool, as the model asked for it. */
export interface ToolCall {
  /** The function_call's `call_id`. */
  readonly id: string;
  /** The raw JSON text of the arguments as the model wrote it; "" means `{}`. */
  readonly args: string;
  /**
   * The key a tool passes to the systems it changes so that a second run of this call is not a
   * second effect (an `Idempotency-Key` header, a unique request id). Set it to keep a key of the
   * application's; left unset, it is the call id, and a tool reads it filled in on `context.call`.
   * See `idempotencyKeyOf`.
   */
  readonly idempotencyKey?: string;
  /**
   * The W3C trace context the call runs under, as `traceparent` and `tracestate` carry it: an MCP
   * server sets it from the request's `_meta`, and a remote tool (`connectMcp`) sends it on in
   * its own request's `_meta`, so a trace crosses each hop. Set it on a job to continue the
   * application's trace. Optional; nothing in the engine reads it.
   */
  readonly trace?: TraceContext;
  /**
   * Set on a call `executeBatch` runs again after an interrupted run (`resume`): the records that
   * run made (`ResumeLog.recorded`), in the order made, for a tool that picks up where it was
   * (see {@link Tool.resumes}). Undefined on a call that runs for the first time.
   */
  readonly resumed?: readonly ToolRecord[];
}

/** A W3C trace context (https://www.w3.org/TR/trace-context/): where a call sits in a trace. */
export interface TraceContext {
  /** `00-<trace id, 32 hex>-<parent id, 16 hex>-<flags, 2 hex>`. */
  readonly traceparent: string;
  /** Vendors' entries (`congo=t61rcWkgMzE,rojo=00f067aa0ba902b7`), when there are any. */
  readonly tracestate?: string;
}

/** What a tool produced. */
export interface ToolResult {
  /** What the model sees: a string, or a list of content parts. */
  output: ToolOutput;
  /** App-only data for subscribers and fronts; never sent to the model. */
  details?: unknown;
  /**
   * Hints that the loop may stop after this batch instead of calling the model again. A loop
   * honours it only when every result of the batch sets it.
   */
  terminate?: boolean;
  /**
   * The result as data, for a tool with an `outputSchema` (checked against it): what MCP sends as
   * `structuredContent`, and what a remote tool's `structuredContent` arrives as. The model reads
   * `output`, its JSON text.
   */
  structured?: { [key: string]: unknown };
}

/**
 * One step of a call: progress when `final` is false, otherwise the one final result. A tool's
 * observable emits zero or more progress events, then exactly one final event, then completes.
 */
export interface ToolEvent {
  /** Whether this is the call's one final event. */
  final: boolean;
  /** The progress update, or the final result. */
  result: ToolResult;
}

/**
 * The numbers behind a progress update: how far the tool is, out of how much, and a message. The
 * fields mirror MCP's progress notification so the adapters forward them in either direction. As
 * an update it becomes `{ output: message ?? "", details: info }`.
 */
export interface ProgressInfo {
  /** How far the tool is; increases with each update. */
  progress: number;
  /** Out of how much, when known. */
  total?: number;
  /** What it is doing, for a person. */
  message?: string;
}

/** A progress update: text, a whole result, or numbers. */
export type ProgressUpdate = string | ToolResult | ProgressInfo;

/**
 * The client connection a call arrived on, when a tool is served over MCP: one tool value serving
 * many clients keys per-client state (a shell, a working directory) on `id`.
 */
export interface Session {
  /** Unique per client connection. */
  readonly id: string;
  /** The client's name and version, when it said. */
  readonly client?: {
    /** The client's name, from MCP's initialize. */
    name: string;
    /** The client's version. */
    version: string;
  };
}

/** What a call can reach while it runs. */
export interface ToolContext {
  /**
   * The call being run, its `idempotencyKey` always filled in: the application's, or else the call id.
   */
  readonly call: ToolCall & {
    /** The application's key, or else the call id. */
    readonly idempotencyKey: string;
  };
  /** Aborts when the call is cancelled, and only then: not when it completes or fails. */
  readonly signal: AbortSignal;
  /** Reports progress on this call; ignored once the call has its final result. */
  progress(update: ProgressUpdate): void;
  /**
   * Writes a handle to a side effect the call has just started (a process group, a temp dir, a
   * remote job id) through the application's recorder. Resolves once the recorder has written it
   * durably, rejects with the recorder's error, and resolves at once when no recorder is
   * installed, so a tool calls it unconditionally.
   */
  record(details: Recordable): Promise<void>;
  /**
   * Runs one step of the call, `fn`, and records its value through the application's recorder
   * (as `record` does), so that a resumed run of the call skips it: when the call runs again in a
   * resumed batch and its earlier run finished the step named `name`, `step` resolves with the
   * recorded value and `fn` is not called. `fn` returns the value, a Promise of it, or an
   * Observable whose last value it is. Resolves, once the record is written, with the value as
   * its JSON gives it back (the same on the first run as on a resumed one); rejects with a
   * TypeError for a value that is not JSON, a name that is not 1 to 128 characters without
   * control characters, or a name the call already used, and with `fn`'s error, unrecorded.
   * A record that cannot be written is reported and the value stands. A cancellation of the
   * call unsubscribes `fn`'s Observable, and a step that ends after it is not recorded. The Node
   * entry installs it; a browser bundle calls `registerSteps()` first. See docs/records.md.
   */
  step<T>(name: string, fn: () => T | PromiseLike<T> | Observable<T>): Promise<T>;
  /**
   * What the earlier run of this call committed, when the call runs again in a resumed batch and
   * that run finished at least one step: the steps' names in the order they finished, and the
   * last progress update the call had reported when the last of them finished. Undefined on a
   * first run.
   */
  readonly resumed?: ResumedRun | undefined;
  /** The MCP client session the call arrived on; undefined outside the MCP server. */
  readonly session?: Session | undefined;
  /**
   * Asks the person beside the model a question, as a form (see {@link ElicitRequest}), and
   * resolves with their answer. Resolves to `{ action: 'decline' }` at once when the application installed
   * no elicitor (so a tool runs headless), and to `{ action: 'cancel' }` when the call is
   * cancelled or ends while the question is open, or when the elicitor fails (an answer that does
   * not fit the schema included). Never rejects for the application's sake; rejects with a
   * TypeError when `request` is not a message and a flat object schema, and with a RangeError for
   * a question past the call's cap (`maxQuestions`, 16 by default), which is never asked.
   */
  elicit(request: ElicitRequest): Promise<ElicitResult>;
}

/**
 * MCP's behavioural hints. They are hints and never permission: a policy may use them to be
 * stricter, never alone to allow a call. An unstated hint says nothing about the tool.
 */
export interface Annotations {
  /** A human-readable name for display. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy rather than only add; meaningful when not read-only. */
  destructiveHint?: boolean;
  /** Calling again with the same arguments has no further effect; meaningful when not read-only. */
  idempotentHint?: boolean;
  /** The tool may reach entities outside a closed domain, as a web search does. */
  openWorldHint?: boolean;
}

/** Whether a call will run inside a sandbox, and what confines it ("" when not confined). */
export interface Confinement {
  /** Whether the call will run inside a sandbox. */
  confined: boolean;
  /** What confines it (`"landlock"`, `"container:agent"`); "" when not confined. */
  by: string;
}

/**
 * Whether a call that may already have run, because its run was interrupted, can run again:
 * `'safe'`, a second run has no further effect (a read, a search); `'idempotent'`, the tool passes
 * `context.call.idempotencyKey` to what it changes, which does the second run once only under the
 * same key; `'unsafe'`, a second run may repeat the effect (the default).
 */
export type Replay = 'safe' | 'unsafe' | 'idempotent';

/** Something the model can call. */
export interface Tool {
  /** The function name the model calls. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The JSON Schema of the arguments object; undefined means the tool takes no arguments. */
  readonly parameters?: JsonSchema;
  /**
   * Runs one call. The observable emits zero or more progress events, then exactly one final
   * event, then completes; an error on it is the tool's failure. Unsubscribing is the interrupt:
   * the tool stops what this call started and nothing the tool value owns across calls. A
   * Promise returned instead (a hand-written `async execute`) is adopted by the engine and the MCP
   * server: its rejection is the call's failure, an Observable it resolves to is run.
   */
  execute(call: ToolCall, context: ToolContext): Observable<ToolEvent>;
  /** The schema follows the strict rules; `strict: true` goes on the function tool. */
  readonly strict?: boolean;
  /** Nothing else in a batch may run while this tool does; the whole batch runs one at a time. */
  readonly sequential?: boolean;
  /**
   * The shared state a call touches (`"shell:session"`); calls naming the same resource run one
   * after another in the model's order while the rest of the batch runs alongside. A counted
   * resource (`{ key: "sandbox", capacity: 4 }`, see {@link ResourceName}) lets up to `capacity`
   * of its calls run at once, still starting in the model's order. A function names it per call,
   * from the call's arguments (`(args) => "file:" + args.path`): two writes to one file run in
   * turn, writes to different files side by side. See {@link ResourceFunction}, `resourceOf` and
   * `capacityOf`.
   */
  readonly resource?: ResourceName | ResourceFunction;
  /** MCP's behavioural hints; see {@link Annotations}. */
  readonly annotations?: Annotations;
  /** Whether a call with these arguments will run confined, asked before it runs. */
  confined?(args: string, context: ToolContext): Confinement;
  /**
   * Whether a call interrupted mid-run can run again; see {@link Replay} and `replayOf`.
   * Unset is `'unsafe'`.
   */
  readonly replay?: Replay;
  /**
   * The tool's calls may take long enough to outlive a connection: `createMcpServer` with a task
   * store (`tasks`) runs a call of a client that declared MCP's tasks extension as a task, which
   * the client polls, answers and cancels by its id, from any instance sharing the store.
   * `'required'`: the tool is served only as a task, and a client without the extension is
   * refused (JSON-RPC `-32021`). Unset or false: calls answer in the request, as any tool's.
   * The executor runs every call alike; see docs/mcp.md.
   */
  readonly task?: boolean | 'required';
  /**
   * The tool's calls detach: the model need not wait for them. Once a call has started (its slot,
   * its resource turn, its approval and `onStart` behind it) and its tool is still running, the
   * batch emits a progress event with `detached: true` whose output tells the model the call runs
   * in the background; the call goes on like any other (its timeout, its signal, cancelled by
   * unsubscribing) and its final event comes when it ends, to be sent in a later turn
   * (`detachedResultItem`). A job's own `detach` wins over this. `createMcpServer` with a task
   * store serves a detached tool as a task unless its `task` says otherwise. See docs/engine.md.
   */
  readonly detach?: boolean;
  /**
   * Whether a call interrupted after making `records` (through `context.record`) can pick up its
   * earlier run rather than run again: a remote tool whose server answered with a task polls that
   * task. When it says so, a resumed batch (`resume`) runs the call, whatever its `replay`, with
   * the records on `call.resumed`. See docs/engine.md.
   */
  resumes?(records: readonly ToolRecord[]): boolean;
  /** Releases what the tool value owns beyond one call; the application's to call, never a batch's. */
  close?(): void | Promise<void>;
  /**
   * Set on a tool that stands for a tool of an MCP server (every tool of `connectMcp` has it): the
   * tool as that server listed it, its tools/list entry. `createMcpServer` serves such a tool as a
   * proxy: listed as the server listed it (title, outputSchema, `_meta`, ... kept, under the
   * tool's name), its arguments passed through unchecked for the server to check, its results and
   * errors sent as the server sent them. `wrap()` forwards it like any property; a wrapper that
   * answers in its own words drops it with `remote: undefined`.
   */
  readonly remote?: RemoteListing;
  /**
   * The JSON Schema of the data the tool's final result carries (`ToolResult.structured`), when it
   * declares one (`tool({ outputSchema })`): an object schema, which `createMcpServer` lists as the
   * tool's `outputSchema`, sending the data as `structuredContent`.
   */
  readonly outputSchema?: JsonSchema;
}

/** An MCP tools/list entry, as a server sent it: its name, and whatever else it lists. */
export interface RemoteListing {
  /** The tool's name on its server (a client may call it by another, prefixed one). */
  readonly name: string;
  readonly [field: string]: unknown;
}

/** Whether `tool`'s schema is strict. */
export function isStrict(tool: Tool): boolean {
  return tool.strict === true;
}

/** Whether `tool` asks to run alone. */
export function isSequential(tool: Tool): boolean {
  return tool.sequential === true;
}

/**
 * `tool`'s annotations, or `{}` when it carries none, which says nothing about the tool rather
 * than saying it is harmless.
 */
export function annotationsOf(tool: Tool): Annotations {
  return tool.annotations ?? {};
}

/**
 * Whether a call of `tool` with `args` will run confined, and by what. A tool that does not say
 * reports `{ confined: false, by: "" }`, which a policy reads as unconfined (the safe mistake is to
 * ask), never as permission.
 */
export function confinedBy(tool: Tool, args: string, context: ToolContext): Confinement {
  if (tool.confined === undefined) return { confined: false, by: '' };
  const answer = tool.confined(args, context);
  return answer.confined ? { confined: true, by: answer.by } : { confined: false, by: '' };
}
