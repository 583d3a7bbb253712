/**
 * A remote MCP tool as a Tool value.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import { LOG_LEVEL_META_KEY, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type {
  CallToolResult,
  LoggingMessageNotification,
  Tool as McpTool,
} from '@modelcontextprotocol/client';
import { Observable, type Subscriber } from 'rxjs';
import {
  CancelledError,
  describeThrown,
  oneLine,
  RecordError,
  ValidationError,
} from '../../lib/errors.js';
import { relaysQuestions } from '../../lib/context.js';
import { relayedModesOf, type QuestionModes } from '../mcp-shared/relayed-modes.js';
import { elicitUrlProblem } from '../../lib/elicit-url.js';
import { describeValue } from '../../lib/validation/format.js';
import type { Recordable, ToolRecord } from '../../lib/records.js';
import type { JsonSchema } from '../../lib/open-responses.js';
import type {
  Annotations,
  Confinement,
  ElicitRequest,
  ElicitResult,
  ElicitUrlRequest,
  ProgressInfo,
  Replay,
  ResourceFunction,
  ResourceName,
  Tool,
  ToolCall,
  TraceContext,
  ToolContext,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { annotationsFromMcp } from '../mcp-shared/mcp-annotations.js';
import { errorTextOf, resultFromMcp } from '../mcp-shared/mcp-content.js';
import {
  callError,
  closedError,
  isConnectionLost,
  McpCallError,
  RemoteToolError,
} from '../mcp-shared/mcp-errors.js';
import { RECORDS_META_KEY, recordsOf } from '../mcp-shared/mcp-records.js';
import { SDK_TIMEOUT, type CallDeadlines, type TimedCall } from './call-deadlines.js';
import type { RoutedCall, RoutedProgress } from './ordered-transport.js';
import { logText } from './server-log.js';
import { taskRelayOf, type TaskRelay } from '../mcp-shared/task-relay.js';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { traceMeta } from '../../lib/trace-context.js';
import type { McpPeer, McpSpan } from '../../lib/telemetry/mcp-spans.js';
import { openMcpSpan } from '../../lib/telemetry/span-hook.js';
import { logDetails } from '../mcp-shared/server-logs.js';
import { listedAsDetached } from '../mcp-shared/mcp-detach.js';
import {
  createdTask,
  recordedTask,
  RemoteTask,
  TASK_RECORD_NS,
  TASKS_EXTENSION,
  type TaskGeneration,
  type TaskRecord,
} from './remote-task.js';
import {
  headerDeclarations,
  paramHeaders,
  type HeaderDeclaration,
} from '../mcp-shared/mcp-param-headers.js';

/** A call waiting for its answer, which the connection fails when it closes. */
export interface InFlightCall extends TimedCall {
  /** The local name of the tool called. */
  readonly tool: string;
  /** This call's token (see `CALL_TOKEN`), which an agenttool server returns with its questions. */
  readonly token: string;
  fail(error: Error): void;
  /** Emits a server log message as a progress event; false when the call has ended. */
  log(params: LoggingMessageNotification['params']): boolean;
  /** Asks the call's context a server's question; undefined when the call has ended. */
  elicit(request: ElicitRequest): Promise<ElicitResult> | undefined;
  /** Whether its context relays questions for another party (see `relaysQuestions`). */
  readonly relays: boolean;
  /** The question modes of the client its context relays for, when known (relayed-modes.ts). */
  readonly relayedModes?: QuestionModes | undefined;
  /** The id of the server's task the call follows, once it follows one. */
  readonly taskId?: string | undefined;
}

/** The transport's part in a call: its progress, and its cancellation (see OrderedTransport). */
export interface CallRouter {
  route(call: RoutedCall): string;
  unroute(token: string): void;
  cancel(token: string, reason: string): void;
}

/** What a remote tool needs from the connection it came from. */
export interface RemoteConnection {
  readonly client: Client;
  /** The peer and protocol, as a call's span names them (see mcp-spans.ts). */
  peer(): McpPeer;
  readonly router: CallRouter;
  /** The request timeout, restarted by every progress notification. */
  readonly deadlines: CallDeadlines;
  isClosed(): boolean;
  readonly inFlight: Set<InFlightCall>;
  /** The error a call still waiting fails with when the connection closes on its own. */
  lostError(tool: string): Error;
  /**
   * Resolves when a call that has its answer may return: once a pending tools/list refresh has
   * landed, or after the notification grace. Undefined when there is nothing to wait for.
   */
  settle(readOnly: boolean): Promise<unknown> | undefined;
  /** The server's name, as it gave it, which marks the records it sends (`ToolRecord.remote`). */
  readonly serverName: string;
  /** Told of a fault that fails no call (`McpClientOptions.onerror`). */
  report(error: Error): void;
  /**
   * Whether the connection speaks MCP 2026-07-28, where a call is cancelled by ending its request
   * (over HTTP, closing its response stream), which the SDK does for a request whose signal aborts.
   */
  readonly modern: boolean;
  /**
   * Whether calls mirror their `x-mcp-header` arguments into `Mcp-Param-*` headers: MCP
   * 2026-07-28 over Streamable HTTP (see docs/mcp.md, "Routing on an argument").
   */
  readonly mirrorsHeaders: boolean;
  /**
   * Whether the client declared URL questions (`McpClientOptions.urlElicitation`): a call refused
   * with -32042 has its pages asked, and is sent again once every one was accepted.
   */
  readonly urlQuestions: boolean;
  /**
   * Which MCP tasks the server serves this client (see remote-task.ts), or undefined when none: a
   * call it answers with a task is polled, and a 2025-11-25 tool that runs only as a task is
   * called as one.
   */
  readonly tasks: TaskGeneration | undefined;
  /** Sends a request of MCP tasks (`tasks/get`, ...) the SDK's client would refuse. */
  taskRequest(method: string, params: Record<string, unknown>): Promise<unknown>;
  /**
   * The capabilities the client declares, the tasks extension among them: what a call of MCP
   * 2026-07-28 declares instead when the client it is made for takes no tasks (see task-relay.ts).
   */
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/**
 * What the application claims about a remote tool, which MCP has no field for; its ordering
 * (sequential, resource) is the listing's `_meta` hints where the application claims none.
 */
export interface RemoteClaims {
  sequential: boolean;
  /** The resource every call touches (counted or not), a function naming it per call, or "" for none. */
  resource: ResourceName | ResourceFunction;
  /** What confines every call of the tool, or undefined when the application claims nothing. */
  confinedBy: string | undefined;
  /** What running a call again does, when the application says (`McpClientOptions.replay`). */
  replay?: Replay;
  /** The application says the tool's calls detach (`McpClientOptions.detach`). */
  detach?: boolean;
}

/** The call's arguments as the object MCP sends; "" is `{}`. */
function argumentsOf(raw: string): Record<string, unknown> {
  if (raw === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ValidationError('', `not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ValidationError('', `expected object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

/**
 * Writes `records` through `context.record`, one after another, in the order they came. A record
 * `context.record` refuses (a RecordError: past the call's caps, a namespace the grammar refuses,
 * text that is not JSON) is dropped, and the call goes on: the records are the server's word,
 * and its result stands. Resolves with how many were dropped and the first reason; any other
 * error (the recorder's) rejects.
 */
async function recordInOrder(
  records: readonly Recordable[],
  context: ToolContext,
): Promise<{ dropped: number; reason: string }> {
  let dropped = 0;
  let reason = '';
  for (let i = 0; i < records.length; i++) {
    try {
      await context.record(records[i]!);
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      if (dropped === 0) reason = err.message;
      // Past the cap on records, so is every later one.
      if (err.limit === 'maxRecords') return { dropped: dropped + records.length - i, reason };
      dropped++;
    }
  }
  return { dropped, reason };
}

function progressInfo(progress: RoutedProgress): ProgressInfo {
  const info: ProgressInfo = { progress: progress.progress };
  if (progress.total !== undefined) info.total = progress.total;
  if (progress.message !== undefined) info.message = progress.message;
  return info;
}

/**
 * One tool of a remote server. The schema is the server's, served verbatim and validated by the
 * server; the client only checks that the arguments are a JSON object. Annotations are the
 * server's hints (mapped with MCP's defaults) and never order or confine a call; sequential and
 * resource are the application's claims, else the ordering hints the server lists in `_meta`
 * (see `McpClientOptions.orderingHints`); confinement is the application's claim alone.
 */
export class RemoteTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly annotations?: Annotations;
  readonly sequential?: boolean;
  readonly resource?: ResourceName | ResourceFunction;
  readonly confined?: (args: string, context: ToolContext) => Confinement;
  readonly replay?: Replay;
  /**
   * What the server's listing says of tasks (MCP 2025-11-25's `execution.taskSupport`):
   * `'required'`, its calls run only as tasks, which the call polls; true, they may.
   */
  readonly task?: boolean | 'required';
  /**
   * The calls detach (see `Tool.detach`): the server lists the tool so (an agenttool server's
   * `_meta` `io.agenttool/detach`), or the application says so (`McpClientOptions.detach`).
   */
  readonly detach?: boolean;
  /** The tool's definition as the server listed it. */
  readonly definition: McpTool;
  /** The server's outputSchema for the tool's `structuredContent`, when it lists one. */
  readonly outputSchema?: JsonSchema;
  /** The same definition, as the Tool property that marks a tool standing for a remote one. */
  readonly remote: McpTool;
  private readonly readOnly: boolean;
  /** Its arguments mirrored into headers, when the connection mirrors them. */
  private readonly headers: readonly HeaderDeclaration[];

  /** @internal Made by the remote for each tool the server lists. */
  constructor(
    private readonly connection: RemoteConnection,
    name: string,
    definition: McpTool,
    claims: RemoteClaims,
  ) {
    this.name = name;
    this.definition = definition;
    this.remote = definition;
    this.description = definition.description ?? '';
    this.parameters = definition.inputSchema as JsonSchema;
    const output = definition.outputSchema as JsonSchema | undefined;
    if (typeof output === 'object' && output !== null) this.outputSchema = output;
    const annotations = annotationsFromMcp(definition);
    if (annotations !== undefined) this.annotations = annotations;
    this.readOnly = annotations?.readOnlyHint === true;
    if (claims.sequential) this.sequential = true;
    if (claims.resource !== '') this.resource = claims.resource;
    const by = claims.confinedBy;
    if (by !== undefined) this.confined = () => ({ confined: true, by });
    if (claims.replay !== undefined) this.replay = claims.replay;
    if (claims.detach === true || listedAsDetached(definition)) this.detach = true;
    const support = taskSupportOf(definition);
    if (support === 'required') this.task = 'required';
    else if (support === 'optional') this.task = true;
    // A listing whose declarations are broken never gets here (McpRemote leaves it out).
    const declared = connection.mirrorsHeaders ? headerDeclarations(definition.inputSchema) : [];
    this.headers = typeof declared === 'string' ? [] : declared;
  }

  /**
   * Calls the remote tool: each progress notification is a progress event (in the order sent),
   * the result the final event. An `isError` answer is a RemoteToolError, any other failure an
   * McpCallError. Unsubscribing before the answer cancels the request on the server. A question
   * the server asks during the call is asked through `context.elicit` (see `connectMcp`), so it
   * shows on this call and a proxy passes it on to its own client; the call's timeout waits while
   * a question is open.
   *
   * Records the server's call made (`_meta["io.agenttool/records"]`, see `RECORDS_META_KEY`) are
   * written through `context.record`, one after another in the order made, before the final event
   * or the failure: under an executor, its recorder on this job. A record that cannot be written
   * fails the call with `mcp: call "<name>": record: <cause>`.
   */
  execute(call: ToolCall, context: ToolContext): Observable<ToolEvent> {
    return new Observable<ToolEvent>((subscriber) => {
      const connection = this.connection;
      if (connection.isClosed()) {
        subscriber.error(closedError(this.name));
        return undefined;
      }
      let args: Record<string, unknown>;
      try {
        args = argumentsOf(call.args);
      } catch (err) {
        subscriber.error(err);
        return undefined;
      }
      const task = call.resumed === undefined ? undefined : this.taskOf(call.resumed);
      const span = openMcpSpan('client', this.definition.name, connection.peer, call.trace);
      const running = new RemoteCall(connection, this.name, this.readOnly, subscriber, context, {
        remoteName: this.definition.name,
        args,
        headers: this.headers.length === 0 ? undefined : paramHeaders(this.headers, args),
        trace: span?.trace ?? call.trace,
        span,
        reissues: this.replay === 'safe' ? MAX_REISSUES : 0,
        ...this.taskTerms(taskRelayOf(context)),
      });
      // A call resumed after a crash whose task this server runs: polled, never called again.
      if (task !== undefined) running.follow(task.generation, task.taskId);
      else running.start();
      return running;
    });
  }

  /**
   * How a call asks for a task. Made for a server that re-serves the tool (`relay`), as that
   * server's client would ask: a task of 2025-11-25 (the tool offers one) or the extension
   * declared only when that client takes tasks from it, so that a tool that runs only as a task
   * is refused as the tool's server refuses such a client. Otherwise as a client of its own: a
   * tool that runs only as a task is called as one.
   */
  private taskTerms(relay: TaskRelay | undefined): Pick<CallRequest, 'asTask' | 'relay' | 'meta'> {
    const v1 = this.connection.tasks === 'v1';
    if (relay === undefined) return { asTask: this.task === 'required' && v1, relay, meta: {} };
    if (relay.declares) return { asTask: this.task !== undefined && v1, relay, meta: {} };
    if (!this.connection.modern) return { asTask: false, relay, meta: {} };
    const { extensions, ...rest } = this.connection.capabilities as {
      extensions?: Record<string, unknown>;
    };
    const others = Object.entries(extensions ?? {}).filter(([name]) => name !== TASKS_EXTENSION);
    const declared =
      others.length === 0 ? rest : { ...rest, extensions: Object.fromEntries(others) };
    return { asTask: false, relay, meta: { [CLIENT_CAPABILITIES_META_KEY]: declared } };
  }

  /**
   * Whether an interrupted call that made `records` can pick up its earlier run: it recorded a
   * task of this tool on this server, which a resumed call polls (see `ResumeLog.recorded`).
   */
  resumes(records: readonly ToolRecord[]): boolean {
    return this.taskOf(records) !== undefined;
  }

  /** The task `records` name for this tool, on a server that still serves tasks. */
  private taskOf(records: readonly ToolRecord[]): TaskRecord | undefined {
    const task = recordedTask(records, this.connection.serverName, this.definition.name);
    return task !== undefined && task.generation === this.connection.tasks ? task : undefined;
  }
}

/** A listing's MCP 2025-11-25 `execution.taskSupport`, if it says one. */
export function taskSupportOf(
  definition: McpTool,
): 'required' | 'optional' | 'forbidden' | undefined {
  const support = (definition as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  return support === 'required' || support === 'optional' || support === 'forbidden'
    ? support
    : undefined;
}

/** The SDK's own timeout is never reached: the call's deadline (CallDeadlines) comes first. */
const SDK_OPTIONS = { timeout: SDK_TIMEOUT } as const;

/** How many times a call of a tool whose replay is safe is sent again after its response broke. */
const MAX_REISSUES = 2;

/** What one call sends, each time it is sent. */
interface CallRequest {
  readonly remoteName: string;
  readonly args: Record<string, unknown>;
  /** Its `Mcp-Param-*` headers, if any. */
  readonly headers: Record<string, string> | undefined;
  /** Its trace context, sent in `_meta`. */
  readonly trace: TraceContext | undefined;
  /** Its `tools/call` span, when the application traces (see mcp-spans.ts). */
  readonly span: McpSpan | undefined;
  /** How many times it may be sent again after its response broke (see `MAX_REISSUES`). */
  readonly reissues: number;
  /** Sent as a task of MCP 2025-11-25 (`task` in its params). */
  readonly asTask: boolean;
  /** The word on tasks of the server re-serving the call (see task-relay.ts), if one does. */
  readonly relay: TaskRelay | undefined;
  /** What the call's `_meta` carries besides its token, records and trace: its capabilities. */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** How long a task of MCP 2025-11-25 is asked to be kept (its `ttl`): an hour. */
const TASK_TTL = 3_600_000;

/** How many times a call refused until a page is visited (-32042) is sent again. */
const MAX_PAGE_ROUNDS = 3;

/** MCP 2025-11-25's error refusing a request until the person has visited pages. */
const URL_ELICITATION_REQUIRED = -32042;

/**
 * The pages a -32042 refusal asks the person to visit, as URL questions; undefined when `err` is
 * not one, or names no page a question may send a person to (see `elicitUrlProblem`).
 */
function pagesOf(err: unknown): ElicitUrlRequest[] | undefined {
  const { code, data } = (err ?? {}) as { code?: unknown; data?: unknown };
  if (code !== URL_ELICITATION_REQUIRED) return undefined;
  const elicitations = (data as { elicitations?: unknown } | null | undefined)?.elicitations;
  if (!Array.isArray(elicitations) || elicitations.length === 0 || elicitations.length > 16)
    return undefined;
  const pages: ElicitUrlRequest[] = [];
  for (const e of elicitations as unknown[]) {
    const { mode, message, url } = (e ?? {}) as Record<string, unknown>;
    if (mode !== 'url' || typeof message !== 'string' || elicitUrlProblem(url) !== undefined)
      return undefined;
    pages.push({ mode: 'url', message, url: url as string });
  }
  return pages;
}

/**
 * One call of a remote tool, from its request to its end; the teardown of its subscription.
 *
 * Its progress comes from the transport (OrderedTransport.route), ahead of its answer by
 * construction; its cancellation goes through the transport too, so no AbortSignal is made.
 */
class RemoteCall implements InFlightCall, RoutedCall {
  requestId: string | number | undefined = undefined;
  deadline = Infinity;
  /** Ends the request in MCP 2026-07-28 (see `RemoteConnection.modern`); none before it. */
  private controller: AbortController | undefined = undefined;
  /**
   * Its progress token, which an agenttool server also sends back with the call's questions (see
   * `CALL_TOKEN`): unique on its connection, where questions are matched to calls.
   */
  token = '';
  private done = false;
  /** Questions open: the deadline waits for a person's answer. */
  private asking = 0;

  constructor(
    private readonly connection: RemoteConnection,
    readonly tool: string,
    private readonly readOnly: boolean,
    private readonly subscriber: Subscriber<ToolEvent>,
    private readonly context: ToolContext,
    private readonly request: CallRequest,
  ) {
    this.reissues = request.reissues;
  }

  /** How many more times the call may be sent again when its response breaks. */
  private reissues: number;

  /** How many more times the call may be sent again after its pages were visited (-32042). */
  private pageRounds = MAX_PAGE_ROUNDS;

  /** Sends the call (again, after a response that broke: see `failed`). */
  start(): void {
    const { remoteName, args, headers, trace } = this.request;
    const connection = this.connection;
    connection.inFlight.add(this);
    this.token = connection.router.route(this);
    connection.deadlines.start(this);
    if (connection.modern) this.controller = new AbortController();
    connection.client
      .callTool(
        {
          name: remoteName,
          arguments: args,
          ...(this.request.asTask ? { task: { ttl: TASK_TTL } } : {}),
          // Asking for the call's records (see asksForRecords), and, for a proxy's call in MCP
          // 2026-07-28, its every log message: the proxy's client's level filters them (call-log.ts).
          _meta: {
            ...this.request.meta,
            progressToken: this.token,
            [RECORDS_META_KEY]: true,
            ...(connection.modern && this.relays ? { [LOG_LEVEL_META_KEY]: 'debug' } : {}),
            ...(trace === undefined ? {} : traceMeta(trace)),
          },
        },
        this.controller === undefined && headers === undefined
          ? SDK_OPTIONS
          : {
              ...SDK_OPTIONS,
              ...(this.controller === undefined ? {} : { signal: this.controller.signal }),
              ...(headers === undefined ? {} : { headers }),
            },
      )
      .then(
        (answer) => this.answered(answer as CallToolResult),
        (err: unknown) => this.failed(err),
      );
  }

  progress(params: RoutedProgress): void {
    if (this.done) return;
    if (this.asking === 0) this.connection.deadlines.start(this);
    const info = progressInfo(params);
    this.subscriber.next({ final: false, result: { output: info.message ?? '', details: info } });
  }

  log(params: LoggingMessageNotification['params']): boolean {
    if (this.done) return false;
    const details = logDetails(params);
    this.subscriber.next({ final: false, result: { output: logText(params.data), details } });
    return true;
  }

  get relays(): boolean {
    return relaysQuestions(this.context);
  }

  get relayedModes(): QuestionModes | undefined {
    return relayedModesOf(this.context);
  }

  elicit(request: ElicitRequest): Promise<ElicitResult> | undefined {
    if (this.done) return undefined;
    this.asking++;
    this.deadline = Infinity;
    const asked = this.context.elicit(request);
    const answered = (): void => {
      // A task's call has no deadline of its own: it runs as long as the task does.
      if (--this.asking === 0 && !this.done && this.task === undefined)
        this.connection.deadlines.start(this);
    };
    asked.then(answered, answered);
    return asked;
  }

  fail(error: Error): void {
    if (this.done) return;
    this.end();
    this.ended({ error });
    this.subscriber.error(error);
  }

  /** Ends the call's span, if it has one. */
  private ended(outcome: Parameters<McpSpan['end']>[0]): void {
    const span = this.request.span;
    if (span === undefined) return;
    span.requestId(this.requestId);
    span.end(outcome);
  }

  timeOut(): void {
    if (this.done) return;
    const timeout = this.connection.deadlines.timeout;
    const error = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout });
    this.cancel(String(error));
    this.fail(callError(this.tool, error));
  }

  /** The task the server answered the call with, polled until it ends (see remote-task.ts). */
  private task: RemoteTask | undefined = undefined;

  get taskId(): string | undefined {
    return this.task?.taskId;
  }

  /**
   * The server answered with a task: it is recorded through the job's recorder (so that a run
   * resumed after a crash polls it rather than calling again), then polled; its status message is
   * the call's progress, its questions the call's, its end the call's.
   */
  private polled(created: NonNullable<ReturnType<typeof createdTask>>): void {
    if ('problem' in created) {
      this.fail(callError(this.tool, new Error(created.problem), '', 'invalid_result'));
      return;
    }
    const { generation, task } = created;
    const record: TaskRecord = {
      server: this.connection.serverName,
      tool: this.request.remoteName,
      taskId: task.taskId,
      generation,
    };
    this.context
      .record({ recordNS: () => TASK_RECORD_NS, toJSON: () => record } as Recordable)
      .catch((err: unknown) =>
        this.connection.report(
          callError(this.tool, err, `task ${task.taskId}: record: `, 'record'),
        ),
      );
    // Told first: a task seen ended at once still makes the re-serving server's task.
    this.request.relay?.upstreamTask();
    this.follow(generation, task.taskId, task);
  }

  /** Polls the task `taskId` (from `first`, its view as created, when known) until it ends. */
  follow(
    generation: TaskGeneration,
    taskId: string,
    first?: Parameters<RemoteTask['start']>[0],
  ): void {
    // In flight again, without a deadline: the connection's loss fails it at once, and a question
    // the server asks for the task (2025-11-25, naming it in `_meta`) finds it.
    this.deadline = Infinity;
    this.connection.inFlight.add(this);
    this.task = new RemoteTask(this.connection.taskRequest, generation, taskId, {
      progress: (message, status) => {
        if (this.done) return;
        this.subscriber.next({
          final: false,
          result: { output: message, details: { message, task: { taskId, status } } },
        });
      },
      elicit: (question) => (this.done ? undefined : this.context.elicit(question)),
      completed: (result) => this.answered(result),
      failed: (error) => this.fail(callError(this.tool, error, `task ${taskId}: `)),
    });
    this.task.start(first);
  }

  /** The subscription's teardown: an unsubscribe before the answer cancels the request. */
  unsubscribe(): void {
    this.task?.cancel();
    if (this.done) return;
    const error = new CancelledError();
    this.cancel(String(error));
    this.end();
    this.ended({ error });
  }

  /** Ends the request: by its signal in MCP 2026-07-28, else by `notifications/cancelled`. */
  private cancel(reason: string): void {
    if (this.controller !== undefined) {
      this.connection.router.unroute(this.token);
      this.controller.abort(new Error(reason));
    } else this.connection.router.cancel(this.token, reason);
  }

  private end(): void {
    this.task?.stop();
    this.done = true;
    this.connection.inFlight.delete(this);
    this.connection.router.unroute(this.token);
  }

  private answered(result: CallToolResult): void {
    if (this.done) return;
    this.connection.inFlight.delete(this);
    this.connection.router.unroute(this.token);
    const created = this.task === undefined ? createdTask(result) : undefined;
    if (created !== undefined) {
      this.polled(created);
      return;
    }
    const settled = this.connection.settle(this.readOnly);
    const records = recordsOf(result, this.connection.serverName);
    if (records.length === 0) {
      if (settled === undefined) this.finish(result);
      else
        settled.then(
          () => this.finish(result),
          () => this.finish(result),
        );
      return;
    }
    // The records the server's call made are written here, through the calling job's recorder,
    // before the call ends: success or failure, the side effect happened.
    const written = recordInOrder(records, this.context).then(({ dropped, reason }) => {
      if (dropped > 0)
        this.connection.report(
          new McpCallError(
            this.tool,
            `mcp: call "${this.tool}": dropped ${dropped} of the ${records.length} records the server sent: ${reason}`,
            undefined,
            'record',
          ),
        );
    });
    Promise.all([written, settled?.catch(() => undefined)]).then(
      () => this.finish(result),
      (err: unknown) => this.fail(callError(this.tool, err, 'record: ', 'record')),
    );
  }

  private finish(result: CallToolResult): void {
    if (this.done) return;
    this.done = true;
    const subscriber = this.subscriber;
    if (result.isError === true) {
      const text = errorTextOf(result);
      this.ended({ toolError: text });
      subscriber.error(new RemoteToolError(this.tool, text, result));
      return;
    }
    let mapped: ToolResult;
    try {
      mapped = resultFromMcp(result);
    } catch (err) {
      // structuredContent too deep for JSON.stringify: the server's fault, this call's end.
      const error = callError(this.tool, err, 'invalid result: ', 'invalid_result');
      this.ended({ error });
      subscriber.error(error);
      return;
    }
    this.ended({});
    subscriber.next({ final: true, result: mapped });
    subscriber.complete();
  }

  /**
   * The server refused the call until the person visits `pages` (-32042), so it never ran: each
   * is asked in turn through the call's context, and the call is sent again once every one was
   * accepted; a page declined or dismissed fails the call, naming it.
   */
  private async visit(pages: readonly ElicitUrlRequest[], err: unknown): Promise<void> {
    for (const page of pages) {
      const asked = this.elicit(page);
      if (asked === undefined) return;
      const answer = await asked.catch(() => undefined);
      if (this.done) return;
      if (answer?.action !== 'accept') {
        const why = answer?.action === 'decline' ? 'declined' : 'not visited';
        this.fail(
          new McpCallError(
            this.tool,
            `mcp: call "${this.tool}": the server needs ${page.url} visited first (${why}): ${oneLine(describeThrown(err))}`,
            err,
            'page_declined',
          ),
        );
        return;
      }
    }
    this.start();
  }

  private failed(err: unknown): void {
    const connection = this.connection;
    connection.inFlight.delete(this);
    if (connection.isClosed()) {
      this.fail(connection.lostError(this.tool));
      return;
    }
    const pages = this.done || !connection.urlQuestions ? undefined : pagesOf(err);
    if (pages !== undefined && this.pageRounds > 0) {
      this.pageRounds--;
      connection.router.unroute(this.token);
      void this.visit(pages, err);
      return;
    }
    const lost = !this.done && isConnectionLost(err);
    if (lost && this.reissues > 0) {
      // Its response broke before the answer, and running it again is safe: send it again.
      this.reissues--;
      connection.router.unroute(this.token);
      this.start();
      return;
    }
    const error = callError(this.tool, err);
    if (lost && this.request.reissues === 0)
      error.message += '; not sent again: its replay is not safe';
    this.fail(error);
  }
}
