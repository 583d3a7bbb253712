/**
 * One tools/call served: validate, run the tool, forward progress, map the outcome back.
 *
 * @module
 */
import type {
  CallToolResult,
  LoggingMessageNotification,
  ProgressToken,
  ServerNotification,
} from '@modelcontextprotocol/server';
import { ProtocolError } from '@modelcontextprotocol/server';
import { relayModes, type QuestionModes } from '../mcp-shared/relayed-modes.js';
import { UnsubscriptionError } from 'rxjs';
import { CallConsumer, ENDED } from '../../lib/call-consumer.js';
import { CallContext, type ProgressSink } from '../../lib/context.js';
import type {
  Elicitor,
  ProgressInfo,
  Session,
  Tool,
  ToolCall,
  ToolResult,
} from '../../lib/contract.js';
import { CancelledError, describeThrown, ToolPanicError } from '../../lib/errors.js';
import type { Recorder, ToolRecord } from '../../lib/records.js';
import { errorResult } from '../../lib/result.js';
import type { ArgumentValidator } from '../../lib/validation/validation.js';
import { contentFromOutput, textOfOutput } from '../mcp-shared/mcp-content.js';
import { McpCallError, RemoteToolError } from '../mcp-shared/mcp-errors.js';
import { withoutRecords, withRecords } from '../mcp-shared/mcp-records.js';
import { logOf } from '../mcp-shared/server-logs.js';
import { relayRoots, type RootsAsker } from '../mcp-shared/relayed-roots.js';
import { relayTasks, type TaskRelay } from '../mcp-shared/task-relay.js';
import type { McpPeer, McpSpan } from '../../lib/telemetry/mcp-spans.js';
import type { ToolSpan } from '../../lib/telemetry/call-spans.js';
import { openMcpSpan, toolSpanUnder } from '../../lib/telemetry/span-hook.js';

/** What one served call needs. */
export interface ServedCall {
  readonly tool: Tool;
  /** Checks the arguments first; undefined for a tool that checks its own (`tool()`). */
  readonly validator: ArgumentValidator | undefined;
  readonly call: ToolCall;
  /** The client's session; undefined when the request belongs to none (stateless HTTP). */
  readonly session: Session | undefined;
  /** Aborts when the client cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  readonly progressToken: ProgressToken | undefined;
  readonly notify: (notification: ServerNotification) => Promise<void>;
  /**
   * Sends a log message to the client, filtered by the level it asked for (the SDK's
   * `ctx.mcpReq.log`): where a remote tool's server logs go (see `logOf`). Undefined: they are
   * dropped, as for a server that does not declare logging.
   */
  readonly log?: ((params: LoggingMessageNotification['params']) => Promise<void>) | undefined;
  /**
   * Answers the tool's questions (`context.elicit`) through the client; undefined when the client
   * cannot answer (the questions are declined at once).
   */
  readonly elicitor?: Elicitor | undefined;
  /**
   * The question modes the client declared, for a remote tool's call: its upstream's question in
   * another mode is refused as that client would refuse it (see relayed-modes.ts).
   */
  readonly modes?: QuestionModes | undefined;
  /**
   * Asks the client for its roots, for a remote tool's call whose server asks for them during it
   * (see relayed-roots.ts); undefined: its server gets the roots its connection offers.
   */
  readonly roots?: RootsAsker | undefined;
  /** Told of a fault that belongs to no result: the tool's teardown threw. Must not throw. */
  readonly report: (error: Error) => void;
  /**
   * The tool is a remote MCP tool: its final result's details and its RemoteToolError's details
   * are the server's CallToolResult, sent as they came.
   */
  readonly passThrough?: boolean;
  /**
   * Whether the client asked for the call's records (`asksForRecords`): they travel in the
   * result's `_meta` only then.
   */
  readonly sendRecords?: boolean;
  /** The server's own recorder, which writes each record before it travels; none by default. */
  readonly recorder?: Recorder | undefined;
  /** The call's cap on records (see `McpServerOptions.maxRecords`); the default when undefined. */
  readonly maxRecords?: number | undefined;
  /** The call's cap on bytes of records; the default when undefined. */
  readonly maxRecordBytes?: number | undefined;
  /** The call's cap on questions (see `McpServerOptions.maxQuestions`); the default when undefined. */
  readonly maxQuestions?: number | undefined;
  /**
   * Told of the error a failed call ended with, before it is mapped to an `isError` result: a
   * task tells a tool's panic (a `failed` task) from a failure the model reads (`completed`).
   */
  readonly onFailure?: ((error: Error) => void) | undefined;
  /** The protocol and session the call's request came in, for its span (see `tracedRun`). */
  readonly peer?: (() => McpPeer) | undefined;
  /** The call's span (see `tracedRun`), told once how the call ended. */
  readonly span?: ToolSpan | undefined;
  /** A remote tool's word on tasks from this server (see task-relay.ts); none for others. */
  readonly taskRelay?: TaskRelay | undefined;
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  );
}

/** The MCP result of a final event: a remote tool's result as it came, else its output mapped. */
function resultOf(served: ServedCall, result: ToolResult): CallToolResult {
  if (served.passThrough === true && isCallToolResult(result.details)) return result.details;
  // A tool that declares an outputSchema sends its checked data too, as MCP asks.
  return result.structured === undefined
    ? { content: contentFromOutput(result.output) }
    : { content: contentFromOutput(result.output), structuredContent: result.structured };
}

/** The MCP result of a failure: a remote tool's `isError` result as it came, else `failure`. */
function failureOf(served: ServedCall, err: Error): CallToolResult {
  if (
    served.passThrough === true &&
    err instanceof RemoteToolError &&
    isCallToolResult(err.details)
  )
    return err.details;
  return failure(err);
}

/**
 * The upstream's JSON-RPC error, for a remote tool whose server refused the call with one (a
 * client capability missing, `-32021`, ...): a proxy answers its client with the same error, code,
 * message and data, as the upstream would have, rather than a tool-error result.
 */
function upstreamRefusalOf(served: ServedCall, err: Error): ProtocolError | undefined {
  if (served.passThrough !== true || !(err instanceof McpCallError) || err.code !== 'protocol')
    return undefined;
  const { code, message, data } = err.cause as { code: number; message?: unknown; data?: unknown };
  const text =
    typeof message === 'string' ? message.replace(/^MCP error -?\d+: /, '') : err.message;
  return ProtocolError.fromError(code, text, data);
}

/** The ToolPanicError for a teardown of `tool` that threw `thrown` (rxjs wraps it). */
function teardownError(tool: string, thrown: unknown): ToolPanicError {
  const cause =
    thrown instanceof UnsubscriptionError && thrown.errors.length > 0 ? thrown.errors[0] : thrown;
  return new ToolPanicError(tool, cause, `teardown threw: ${describeThrown(cause)}`);
}

/** A failed call's MCP result: `Error: <message>` as text, `isError` set. */
export function failure(err: unknown): CallToolResult {
  return { content: contentFromOutput(errorResult(err).output), isError: true };
}

function progressInfoOf(details: unknown): ProgressInfo | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const progress = (details as { progress?: unknown }).progress;
  return typeof progress === 'number' && Number.isFinite(progress)
    ? (details as ProgressInfo)
    : undefined;
}

/**
 * Sends each progress update as a notifications/progress for the request's token: a ProgressInfo's
 * numbers as they are, otherwise one more than the last progress sent; the message is the info's,
 * or else the update's text. Send failures are dropped: progress is advisory.
 */
class ProgressForwarder implements ProgressSink {
  private last = 0;
  constructor(
    private readonly token: ProgressToken,
    private readonly notify: (notification: ServerNotification) => Promise<void>,
  ) {}

  progress(result: ToolResult): void {
    const info = progressInfoOf(result.details);
    const progress = info === undefined ? this.last + 1 : info.progress;
    const message = info?.message ?? textOfOutput(result.output);
    this.last = progress;
    const params: {
      progressToken: ProgressToken;
      progress: number;
      total?: number;
      message?: string;
    } = { progressToken: this.token, progress };
    if (info?.total !== undefined) params.total = info.total;
    if (message !== '') params.message = message;
    this.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  }
}

/**
 * The consumer of one served call: settles with the MCP result of its end, or with a
 * CancelledError's when the request's signal aborts. The abort listener is the object itself, and
 * only a call still running once its tool has started listens: one that ended inside `subscribe`
 * answers at once, without a Promise or a listener.
 */
class ServedConsumer extends CallConsumer implements EventListenerObject {
  private readonly sink: ProgressForwarder | undefined;
  /** What the call recorded before its end, sent in its result's _meta. */
  private records: ToolRecord[] | undefined = undefined;
  private result: CallToolResult | undefined = undefined;
  private resolve: ((result: CallToolResult) => void) | undefined = undefined;
  /** The upstream's refusal the call ends with instead of a result (see upstreamRefusalOf). */
  private refusal: ProtocolError | undefined = undefined;
  private reject: ((refusal: ProtocolError) => void) | undefined = undefined;

  constructor(private readonly served: ServedCall) {
    super();
    this.init();
    this.sink =
      served.progressToken === undefined
        ? undefined
        : new ProgressForwarder(served.progressToken, served.notify);
  }

  run(): CallToolResult | Promise<CallToolResult> {
    const { tool, call, signal } = this.served;
    if (signal.aborted) {
      const error = new CancelledError();
      this.served.span?.end(undefined, error);
      return failure(error);
    }
    // What the call records travels in its result's _meta; the server's recorder, if any, writes
    // it first (and alone keeps the records of a call the client cancels: MCP sends no result).
    const local = this.served.recorder;
    const recorder: Recorder = (record, recorded) => {
      if (this.phase !== ENDED) (this.records ??= []).push(record);
      return local?.(record, recorded);
    };
    const context = new CallContext(call, {
      sink: this,
      session: this.served.session,
      recorder,
      maxRecords: this.served.maxRecords,
      maxRecordBytes: this.served.maxRecordBytes,
      maxQuestions: this.served.maxQuestions,
      elicitor: this.served.elicitor,
      // A remote tool's question is its server's: the person's answer goes back as given, for
      // that server to judge.
      checkAnswers: this.served.passThrough !== true,
    });
    if (this.served.taskRelay !== undefined) relayTasks(context, this.served.taskRelay);
    const modes = this.served.modes;
    if (this.served.passThrough === true && modes !== undefined && (modes.form || modes.url))
      relayModes(context, modes);
    if (this.served.passThrough === true && this.served.roots !== undefined)
      relayRoots(context, this.served.roots);
    if (!this.consume(tool, call, context))
      return this.refusal === undefined ? this.result! : Promise.reject(this.refusal);
    // An abort while the tool started is taken now. The listener stays: once the request is
    // answered the SDK drops its signal, which never aborts after that, and a late abort finds
    // the call ended.
    if (signal.aborted) {
      this.handleEvent();
      return this.result!;
    }
    signal.addEventListener('abort', this);
    return new Promise<CallToolResult>((resolve, reject) => {
      if (this.result !== undefined) resolve(this.result);
      else if (this.refusal !== undefined) reject(this.refusal);
      else {
        this.resolve = resolve;
        this.reject = reject;
      }
    });
  }

  /** The request's signal aborted: the tool's signal aborts, then it is unsubscribed. */
  handleEvent(): void {
    if (this.phase === ENDED) return;
    this.cancel();
    const error = new CancelledError();
    this.served.span?.end(undefined, error);
    this.settle(failure(error));
  }

  protected onProgress(result: ToolResult): void {
    // A remote server's log message stays a log message: as progress it would repeat a value.
    const log = this.served.passThrough === true ? logOf(result.details) : undefined;
    if (log !== undefined) this.served.log?.(log).catch(() => undefined);
    else this.sink?.progress(result);
  }

  protected onEnd(result: ToolResult | undefined, error: Error | undefined): void {
    if (error !== undefined) this.served.onFailure?.(error);
    this.served.span?.end(result, error);
    const refusal = error === undefined ? undefined : upstreamRefusalOf(this.served, error);
    if (refusal !== undefined) {
      if (this.result !== undefined || this.refusal !== undefined) return;
      this.refusal = refusal;
      this.reject?.(refusal);
      return;
    }
    const mapped =
      error === undefined
        ? resultOf(this.served, result as ToolResult)
        : failureOf(this.served, error);
    if (this.served.sendRecords !== true) this.settle(withoutRecords(mapped));
    else this.settle(this.records === undefined ? mapped : withRecords(mapped, this.records));
  }

  protected onTeardownError(thrown: unknown): void {
    this.served.report(teardownError(this.served.tool.name, thrown));
  }

  private settle(result: CallToolResult): void {
    if (this.result !== undefined || this.refusal !== undefined) return;
    this.result = result;
    this.resolve?.(result);
  }
}

/**
 * Runs one served call to its MCP result. A validation problem, a failure, a contract break and a
 * cancellation are all `isError` results (the SDK sends nothing for a cancelled request); it
 * rejects only with a remote tool's upstream refusal (a JSON-RPC error, `-32021` ...; see
 * `upstreamRefusalOf`), which the server answers as that error. The tool is consumed by the rules of {@link CallConsumer}: it is
 * unsubscribed as soon as its call ends (final, error, completion or cancellation); a teardown
 * that throws then is caught and passed to `served.report`, never thrown into the tool's timers
 * or the request's abort signal, and the call's result stands. A call that ends before this
 * returns (a synchronous tool) gives its result itself rather than a Promise of it.
 */
export function runServedCall(served: ServedCall): CallToolResult | Promise<CallToolResult> {
  const mcp = openMcpSpan('server', served.tool.name, served.peer ?? {}, served.call.trace);
  if (mcp === undefined) return runUntraced(served);
  return tracedRun(served, mcp);
}

function runUntraced(served: ServedCall): CallToolResult | Promise<CallToolResult> {
  try {
    served.validator?.parse(served.call.args);
  } catch (err) {
    served.span?.end(undefined, err as Error);
    return failure(err);
  }
  return new ServedConsumer(served).run();
}

/**
 * A served call when the application traces (docs/telemetry.md): the request's `tools/call`
 * SERVER span, under the client's span its `_meta` names, and the call's `execute_tool` span
 * under it, in whose context the tool runs. A call held over several requests (a question asked
 * in MCP 2026-07-28, a task) has them from its first request to its result.
 */
function tracedRun(served: ServedCall, mcp: McpSpan): CallToolResult | Promise<CallToolResult> {
  // Under the SERVER span, not the client's span the call's trace names (the SERVER span is
  // under that one already).
  const span = toolSpanUnder(mcp.context, { tool: served.tool, call: served.call });
  const ended = (result: CallToolResult): CallToolResult => {
    mcp.end(result.isError === true ? { toolError: textOfResult(result) } : {});
    return result;
  };
  const out =
    span === undefined
      ? runUntraced(served)
      : span.run(() => runUntraced({ ...served, call: span.call, span }));
  return out instanceof Promise
    ? out.then(ended, (refusal: Error) => {
        mcp.end({ error: refusal });
        throw refusal;
      })
    : ended(out);
}

/** The text of an error result, as its span's status says it. */
function textOfResult(result: CallToolResult): string {
  const first = result.content?.[0] as { type?: unknown; text?: unknown } | undefined;
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : 'tool error';
}
