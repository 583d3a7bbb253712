/**
 * `createMcpServer()`: Tool values served over MCP, one Server per client connection.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { isObservable, type Observable } from 'rxjs';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
  type Tool as McpTool,
  type Transport,
} from '@modelcontextprotocol/server';
import type { Session, Tool } from '../../lib/contract.js';
import type { Recorder } from '../../lib/records.js';
import { oneLine, SchemaError, ValidationError } from '../../lib/errors.js';
import { visible } from '../../lib/visible.js';
import { definition } from '../../lib/tool-set.js';
import { checksOwnArguments } from '../../lib/tool.js';
import {
  compileValidator,
  type ArgumentLimits,
  type ArgumentValidator,
} from '../../lib/validation/validation.js';
import { MAX_SCHEMA_DEPTH, valueDeeperThan } from '../../lib/validation/json.js';
import { annotationsToMcp } from '../mcp-shared/mcp-annotations.js';
import {
  orderingMeta,
  RESOURCE_META_KEY,
  SEQUENTIAL_META_KEY,
} from '../mcp-shared/ordering-hints.js';
import { headerDeclarations, type HeaderDeclaration } from '../mcp-shared/mcp-param-headers.js';
import { callTokenOf } from '../mcp-shared/call-token.js';
import { asksForRecords } from '../mcp-shared/mcp-records.js';
import { traceOf } from '../../lib/trace-context.js';
import { answerSetLevel, sendCallLog } from './call-log.js';
import { clientElicitor, elicitationModes } from './client-elicitor.js';
import { HeldCall, heldCall, questionTimeoutOf } from './held-calls.js';
import { openState, stateSigningOf } from './request-state.js';
import { failure, runServedCall, type ServedCall } from './served-call.js';
import { isStateless } from './stateless-servers.js';
import type { ServerLogs } from './server-logs.js';
import type { RootsRelay } from './roots-relay.js';
import { RawInputResponses } from './raw-input-responses.js';
import { OpeningCall, openingOf } from './opening-questions.js';
import { wireTask } from './task-host.js';
import { DETACH_META_KEY } from '../mcp-shared/mcp-detach.js';
import {
  checkTaskOptions,
  declaresTasks,
  type RunningTask,
  taskHostOf,
  TASKS_EXTENSION,
  type TaskOptions,
} from './task-host.js';
import type { TaskStore } from './task-store.js';
import {
  CancelTaskRequestV2Schema,
  GetTaskRequestV2Schema,
  UpdateTaskRequestV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';

/** Options of {@link createMcpServer}; every field is optional. */
export interface McpServerOptions {
  /** Instructions for the model, sent to the client on initialize. */
  instructions?: string | undefined;
  /**
   * The server's own log messages, those of no call (a proxy's upstream servers' logs outside a
   * call): sent to each connected client at the level it asked for (see {@link ServerLogs}); the
   * server then declares `logging`. Default none.
   */
  logs?: ServerLogs | undefined;
  /**
   * The roots of this server's clients, for a proxy to offer its upstream servers (see
   * {@link RootsRelay}: `connectMcp`'s `roots` is its `roots$`). Default none.
   */
  roots?: RootsRelay | undefined;
  /** Limits on a call's raw argument text (the validator's defaults: 1 MiB, nesting 256). */
  limits?: ArgumentLimits | undefined;
  /**
   * The session id when the transport has none (stdio, in-memory); default a random UUID, one per
   * Server. A transport with sessions (Streamable HTTP) always gives its own.
   */
  sessionId?: string | undefined;
  /**
   * Told of faults that belong to no call's result, so that they never take the process down:
   * a tool left out because its schema cannot be served (a {@link SchemaError} naming it,
   * reported once per tool value), and a tool's teardown that threw after its call ended (a
   * ToolPanicError naming it; the call's result stands), and a client that failed to answer a
   * tool's question (`mcp server: elicitation: ...`; the question ends with `cancel`). Default:
   * one line on stderr each. It
   * must not throw; what it throws is dropped.
   */
  onError?: ((error: Error) => void) | undefined;
  /**
   * Writes, on this side, every record a served call makes (`context.record`), before the record
   * travels to the client in the result's `_meta` (`"io.agenttool/records"`); the tool's
   * `record` resolves once it has, and rejects with its error. Optional: without it a record only
   * travels, and `record` resolves at once. It is the only keeper of the records of a call the
   * client cancels, since MCP sends no result for a cancelled request.
   */
  recorder?: Recorder | undefined;
  /**
   * The most records one served call may make (default 1,000), sent in its result and written by
   * `recorder`: past it the tool's `context.record` rejects with a RecordError, as under the
   * executor (`ExecuteOptions.maxRecords`).
   */
  maxRecords?: number | undefined;
  /** The most bytes of records one served call may make (default 1 MiB); see `maxRecords`. */
  maxRecordBytes?: number | undefined;
  /**
   * The most questions one served call may ask its client over its life (default 16): past it the
   * tool's `context.elicit` rejects with a RangeError and nothing is sent, as under the executor
   * (`ExecuteOptions.maxQuestions`). A proxy's cap holds for the questions its upstream asks too.
   */
  maxQuestions?: number | undefined;
  /**
   * How long a client of MCP 2026-07-28 may keep this server's tool list before asking again
   * (`ttlMs`, in ms) and who may keep it (`cacheScope`: `private`, the client alone, or `public`,
   * shared caches too), sent on every `tools/list` result. Default `{ ttlMs: 0, cacheScope:
   * 'private' }`: ask every time. Give a longer time when the tool set is fixed for the server's
   * life; a proxy's tool set follows its upstream's, so keep it short there.
   */
  listCache?: {
    /** How long (ms) the list may be kept. */
    ttlMs?: number;
    /** Who may keep it: the client alone (`private`) or shared caches too (`public`). */
    cacheScope?: 'public' | 'private';
  };
  /**
   * How long (ms) a served call's question may wait for its client's answer (default
   * {@link DEFAULT_QUESTION_TIMEOUT}, 5 minutes): a call of MCP 2026-07-28 that asked is held,
   * running, for the client's retry with the answer this long; past it the call is cancelled (its
   * question ends with `cancel`) and a late retry is told to call the tool again. A held call
   * takes no admission slot while it waits (see `maxHeldCalls` of `serveHttp`). See docs/mcp.md.
   */
  questionTimeoutMs?: number | undefined;
  /** @deprecated The old name of {@link McpServerOptions.questionTimeoutMs}, which wins when both are given. */
  retryTimeout?: number | undefined;
  /**
   * The client capabilities a tool's calls need, by tool name (`{ ask_user: { elicitation: {} } }`):
   * a call from a client that did not declare them is refused before the tool runs, with JSON-RPC
   * error `-32021` (MissingRequiredClientCapability; HTTP 400 in MCP 2026-07-28) whose
   * `data.requiredCapabilities` names what is missing. A capability's members count too
   * (`{ elicitation: { url: {} } }` needs URL-mode elicitation). Without it, a tool that asks a
   * client that cannot answer has its question declined (see `context.elicit`), which suits a
   * tool that can go on without the answer.
   */
  requiredCapabilities?: Readonly<Record<string, ClientCapabilities>> | undefined;
  /**
   * Serve MCP's tasks extension (`io.modelcontextprotocol/tasks`) with tasks kept in `store`: a
   * call of a tool marked `task` (see `Tool.task`) from a client of MCP 2026-07-28 that declared
   * the extension is answered at once with its task (`resultType: "task"`), runs on, and is
   * polled (`tasks/get`), answered (`tasks/update`) and cancelled (`tasks/cancel`) by its id from
   * any server sharing the store. Give every server of one process the same store value; give
   * instances on several machines one Redis (`redisTaskStore` of `agenttool/redis`). See
   * docs/mcp.md.
   */
  tasks?: TaskOptions | undefined;
  /**
   * What a proxy declares as its upstreams do, rather than by its own rule: `logging` (declared,
   * and `logging/setLevel` answered, only when true) and `toolsListChanged` (`tools.listChanged`
   * only when true). `agenttool serve --mcp` declares each when one of its upstream servers does.
   * Default: `logging` for a server of remote tools or `logs`, `toolsListChanged` for a live list.
   */
  declares?: { logging?: boolean; toolsListChanged?: boolean } | undefined;
  /**
   * Answers a call of a tool name this server does not serve, instead of the server's own
   * `-32602 unknown tool "<name>"`: a proxy asks its upstream, whose answer (a result, or a
   * JSON-RPC error, thrown as a ProtocolError) is the client's. `agenttool serve --mcp` asks its
   * first upstream server.
   */
  unknownTool?:
    | ((name: string, args: Record<string, unknown> | undefined) => Promise<CallToolResult>)
    | undefined;
}

/**
 * The SDK's Server, for a server of tasks: the SDK gives every tools/call result `content: []`
 * when it has none, which a CreateTaskResult must not carry (`content` belongs to the task's
 * result, on `tasks/get`).
 */
class TaskServer extends Server {
  /** The `inputResponses` of `tasks/update` requests as sent (see raw-input-responses.ts). */
  readonly rawInput = new RawInputResponses();

  override async connect(transport: Transport): Promise<void> {
    this.rawInput.watch(transport);
    await super.connect(transport);
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return async (request, ctx) => {
      const result = (await wrapped(request, ctx)) as Result & { content?: unknown };
      if (result.resultType !== 'task') return result;
      const { content, ...task } = result;
      return Array.isArray(content) && content.length === 0 ? task : result;
    };
  }
}

/**
 * Answers a request of an opening call (see opening-questions.ts), noting the task it became for
 * the HTTP handler (`startedTaskOf`).
 */
async function answerOpening(
  server: Server,
  opening: OpeningCall,
  ctx: ServerContext,
  declared: boolean,
): Promise<unknown> {
  const result = await opening.next(ctx, stateSigningOf(server), declared);
  const task = opening.running;
  if (task !== undefined && (result as { resultType?: unknown }).resultType === 'task')
    startedTasks.set(server, task);
  return result;
}

/**
 * A served call's result, an upstream refusal (see `runServedCall`) as an `isError` result: a
 * call that became a task has no request left to answer with the error.
 */
function refusalAsFailure(
  result: CallToolResult | Promise<CallToolResult>,
): Promise<CallToolResult> {
  return Promise.resolve(result).catch((refusal: unknown) => failure(refusal));
}

/** The -32021 refusal of a client that did not declare the tasks extension. */
function tasksRequired(what: string): MissingRequiredClientCapabilityError {
  const requiredCapabilities = { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities },
    `${what}: declare the extension "${TASKS_EXTENSION}" in the request's client capabilities`,
  );
}

/** The served call: its id, its arguments' text, and the trace context its request carries. */
function callOf(id: string, args: string, meta: unknown): ServedCall['call'] {
  const trace = traceOf(meta);
  return trace === undefined ? { id, args } : { id, args, trace };
}

/**
 * The capabilities the client declared for the request `ctx` serves: in MCP 2026-07-28 those its
 * request carries (`_meta`), read from the request itself, since one Server may serve many
 * requests (stdio), each with its own; otherwise those it gave on initialize.
 */
function clientCapabilitiesOf(
  server: Server,
  ctx: { mcpReq: unknown },
): ClientCapabilities | undefined {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const own = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return typeof own === 'object' && own !== null
    ? (own as ClientCapabilities)
    : server.getClientCapabilities();
}

/** What of `required` the client's `declared` capabilities lack, or undefined when nothing. */
function missingCapabilities(
  required: ClientCapabilities,
  declared: ClientCapabilities | undefined,
): ClientCapabilities | undefined {
  const missing: Record<string, unknown> = {};
  for (const [key, wanted] of Object.entries(required)) {
    const has = (declared as Record<string, unknown> | undefined)?.[key];
    if (typeof has !== 'object' || has === null) {
      missing[key] = wanted;
      continue;
    }
    const lacking = Object.entries((wanted ?? {}) as Record<string, unknown>).filter(
      ([member]) => (has as Record<string, unknown>)[member] === undefined,
    );
    if (lacking.length > 0) missing[key] = Object.fromEntries(lacking);
  }
  return Object.keys(missing).length === 0 ? undefined : (missing as ClientCapabilities);
}

interface Entry {
  readonly tool: Tool;
  readonly validator: ArgumentValidator | undefined;
  /**
   * A task tool's check of its arguments before its task is made (a call it would refuse is
   * answered at once), even for a tool that checks its own; undefined for other tools.
   */
  readonly precheck?: ArgumentValidator | undefined;
}

/**
 * The `x-mcp-header` declarations of each served tool that has any, by server: what the HTTP
 * handler checks a 2026-07-28 call's `Mcp-Param-*` headers against (see {@link paramHeaderRules}).
 */
const headerRules = new WeakMap<Server, () => ReadonlyMap<string, readonly HeaderDeclaration[]>>();

/**
 * The `x-mcp-header` declarations of the tool `name` as `server` (from {@link createMcpServer})
 * serves it; undefined when it has none, or is not served.
 */
export function paramHeaderRules(
  server: Server,
  name: string,
): readonly HeaderDeclaration[] | undefined {
  return headerRules.get(server)?.().get(name);
}

/** The call of MCP 2026-07-28 each server (one per request in that era) started, if it asked. */
const heldCalls = new WeakMap<Server, HeldCall>();

/**
 * The call `server` started for its 2026-07-28 request, when it is held for its client's retry
 * (see held-calls.ts): the HTTP handler counts it against its `maxHeldCalls`.
 */
export function heldCallOf(server: Server): HeldCall | undefined {
  const call = heldCalls.get(server);
  return call?.isHeld === true ? call : undefined;
}

/** Per server of tasks: the store it serves a tool's calls as tasks with, if it does. */
const taskStores = new WeakMap<Server, (tool: string) => TaskStore | undefined>();

/**
 * The store `server` serves calls of `tool` as tasks with (to a client that declares the tasks
 * extension), or undefined when it serves them as plain calls: the HTTP handler's `maxTasks`.
 */
export function taskStoreOf(server: Server, tool: string): TaskStore | undefined {
  return taskStores.get(server)?.(tool);
}

/** The task each server (one per request in MCP 2026-07-28) started, if its call made one. */
const startedTasks = new WeakMap<Server, RunningTask>();

/**
 * The task `server` started for its request, if any: the HTTP handler gives it the request's
 * admission slot to keep while the task runs (see `RunningTask.keepSlot`).
 */
export function startedTaskOf(server: Server): RunningTask | undefined {
  return startedTasks.get(server);
}

/** The declarations of a listing's input schema, once per tool value; a SchemaError when broken. */
const declared = new WeakMap<Tool, readonly HeaderDeclaration[]>();
function declarationsOf(tool: Tool, listing: McpTool): readonly HeaderDeclaration[] {
  const hit = declared.get(tool);
  if (hit !== undefined) return hit;
  const found = headerDeclarations(listing.inputSchema);
  if (typeof found === 'string') throw new SchemaError(tool.name, found);
  declared.set(tool, found);
  return found;
}

/** A tool ready to serve (its listing and the validator the server runs), or why it is not. */
type Prepared =
  { readonly listing: McpTool; readonly entry: Entry } | { readonly problem: SchemaError };

/**
 * Every tool prepared once per tool value and limits, whatever number of servers (one per HTTP
 * session) serve it: compiling thousands of schemas again for each new session would cost seconds.
 */
const preparedTools = new WeakMap<Tool, Map<string, Prepared>>();

function prepare(tool: Tool, limits: ArgumentLimits | undefined, report: (e: Error) => void) {
  const key = limits === undefined ? '' : `${limits.maxLength}/${limits.maxDepth}`;
  let byLimits = preparedTools.get(tool);
  if (byLimits === undefined) preparedTools.set(tool, (byLimits = new Map()));
  const hit = byLimits.get(key);
  if (hit !== undefined) return hit;
  let prepared: Prepared;
  try {
    // A tool() checks the same text against the same schema, with the same messages, before it
    // runs: checking twice would only cost. Limits set for this server still need the server's
    // check.
    const own = limits === undefined && checksOwnArguments(tool);
    const validator = own
      ? undefined
      : compileValidator(tool.parameters, { tool: tool.name, limits });
    const task = taskOf(tool);
    const precheck =
      task === true || task === 'required'
        ? (validator ?? compileValidator(tool.parameters, { tool: tool.name }))
        : undefined;
    const listing = listingOf(tool);
    declarationsOf(tool, listing);
    prepared = { listing, entry: { tool, validator, precheck } };
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    prepared = { problem: err };
    report(err);
  }
  byLimits.set(key, prepared);
  return prepared;
}

/**
 * The default {@link McpServerOptions.onError}: one line on stderr, starting `mcp server: ` once
 * (an error that already says it is not given it twice), its text escaped: a client's error
 * message is the peer's text, and no escape sequence in it reaches the terminal.
 */
function reportOnStderr(error: Error): void {
  const left = error instanceof SchemaError ? '; the tool is left out' : '';
  const text = oneLine(error.message);
  const line = text.startsWith('mcp server: ') ? text : `mcp server: ${text}`;
  process.stderr.write(`${visible(line)}${left}\n`);
}

/**
 * How a call of `tool` is served as a task (see `Tool.task`): as its `task` says, and a tool whose
 * calls detach (`Tool.detach`) and says nothing of tasks as `task: true`, so that a client that
 * takes tasks gets one it can poll while the model goes on.
 */
function taskOf(tool: Tool): boolean | 'required' | undefined {
  const task = tool.task;
  return task === undefined && tool.detach === true ? true : task;
}

/**
 * The tools/list entry of `tool`: its schema, exactly the annotation hints it states, and its
 * ordering hints in `_meta` (see {@link orderingMeta}). A remote tool (from `connectMcp`) is
 * listed as its server listed it (title, annotations, outputSchema, `_meta`, ...), under its local
 * name, so a proxy hop changes nothing a client sees; only an `execution` that offers tasks is
 * left out, since this server runs none, and its ordering hints are the ones it runs under here
 * (the upstream's as `connectMcp` took them, under its prefix, or the application's word).
 */
function listingOf(tool: Tool): McpTool {
  const parameters = definition(tool).parameters;
  if (parameters.type !== 'object')
    throw new SchemaError(
      tool.name,
      'MCP serves object schemas only ("type": "object" at the root)',
    );
  if (tool.remote !== undefined) {
    // Sending it writes it as JSON, which recurses once per level (see MAX_SCHEMA_DEPTH).
    if (valueDeeperThan(tool.remote, MAX_SCHEMA_DEPTH))
      throw new SchemaError(
        tool.name,
        `its definition is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
      );
    const listing = { ...tool.remote, name: tool.name } as McpTool;
    const meta = withOrdering(listing._meta, tool);
    if (meta !== listing._meta) listing._meta = meta;
    if (
      listing.execution?.taskSupport !== undefined &&
      listing.execution.taskSupport !== 'forbidden'
    )
      delete listing.execution;
    return listing;
  }
  const listing: McpTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: parameters as McpTool['inputSchema'],
  };
  if (tool.outputSchema !== undefined)
    listing.outputSchema = tool.outputSchema as McpTool['outputSchema'];
  const annotations = annotationsToMcp(tool.annotations);
  if (annotations !== undefined) listing.annotations = annotations;
  const meta = orderingMeta(tool);
  if (meta !== undefined || tool.detach === true)
    listing._meta = { ...meta, ...(tool.detach === true && { [DETACH_META_KEY]: true }) };
  return listing;
}

/**
 * A remote listing's `_meta` with its ordering hints replaced by those `tool` runs under; `meta`
 * itself when it is no object and there are none.
 */
function withOrdering(meta: McpTool['_meta'], tool: Tool): McpTool['_meta'] {
  const hints = orderingMeta(tool);
  if (typeof meta !== 'object' || meta === null) return hints ?? meta;
  const {
    [SEQUENTIAL_META_KEY]: _sequential,
    [RESOURCE_META_KEY]: _resource,
    ...rest
  } = meta as Record<string, unknown>;
  return { ...rest, ...hints };
}

/** Whether `server` serves a request of MCP 2026-07-28 or later (no initialize, no session). */
function isModern(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= '2026-07-28';
}

/**
 * A JSON-RPC error with `code` whose message is `message` as it is: the SDK's McpError would put
 * `MCP error <code>: ` in the message sent, and the client's McpError adds it again.
 */
function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A live tool source's latest list, and the servers that serve it (to tell of a change). */
interface Source {
  latest: readonly Tool[];
  readonly servers: Set<WeakRef<Server>>;
  /** Told of each change too: an HTTP handler's `subscriptions/listen` streams (2026-07-28). */
  readonly listeners: Set<() => void>;
}

/** The live source each server serves, for {@link onToolListChange}. */
const sourceOfServer = new WeakMap<Server, Source>();

/**
 * Calls `listener` whenever the live tool list `server` serves changes (see `createMcpServer`
 * with an Observable): what a handler of MCP 2026-07-28 tells its `subscriptions/listen` streams,
 * since its servers live one request each. Returns what stops it, and the same function for every
 * server of one source, so a caller follows a source once; undefined for a server of a fixed list.
 */
export function onToolListChange(
  server: Server,
  listener: () => void,
): { source: object; stop: () => void } | undefined {
  const source = sourceOfServer.get(server);
  if (source === undefined) return undefined;
  source.listeners.add(listener);
  return { source, stop: () => source.listeners.delete(listener) };
}

/**
 * Live sources, each followed once however many servers (one per session or request) serve it:
 * a subscription per server would outlive the servers nobody closes.
 */
const sources = new WeakMap<object, Source>();

function sourceOf(tools$: Observable<Iterable<Tool>>): Source {
  const known = sources.get(tools$);
  if (known !== undefined) return known;
  const source: Source = { latest: [], servers: new Set(), listeners: new Set() };
  sources.set(tools$, source);
  tools$.subscribe({
    next: (next) => {
      const list = [...next];
      const same =
        list.length === source.latest.length && list.every((tool, i) => tool === source.latest[i]);
      source.latest = list;
      if (same) return;
      for (const ref of source.servers) {
        const server = ref.deref();
        if (server === undefined) source.servers.delete(ref);
        // Told to a connected client only; a server not (or no longer) connected refuses.
        else server.sendToolListChanged().catch(() => undefined);
      }
      for (const listener of source.listeners) listener();
    },
    error: () => undefined,
  });
  return source;
}

const EMPTY: Served = { entries: new Map(), list: { tools: [] }, rules: new Map() };

/** What a server serves: the entries by name, the listing, the header rules. */
interface Served {
  readonly entries: ReadonlyMap<string, Entry>;
  readonly list: { tools: McpTool[] };
  readonly rules: ReadonlyMap<string, readonly HeaderDeclaration[]>;
}

/**
 * `tools` made ready to serve (see `prepare`); a tool that cannot be is left out and reported.
 * @throws Error for an empty or duplicate tool name.
 */
function readyToServe(
  tools: Iterable<Tool>,
  options: McpServerOptions,
  report: (error: Error) => void,
): Served {
  const entries = new Map<string, Entry>();
  const listings: McpTool[] = [];
  const names = new Set<string>();
  for (const tool of tools) {
    if (typeof tool.name !== 'string' || tool.name === '')
      throw new Error('mcp server: a tool has an empty name');
    if (names.has(tool.name)) throw new Error(`mcp server: duplicate tool name "${tool.name}"`);
    names.add(tool.name);
    // A remote tool's server checks its own arguments and answers in its own words; a proxy that
    // answered for it would change what the client sees.
    if (tool.remote !== undefined) {
      let listing: McpTool;
      try {
        listing = listingOf(tool);
        declarationsOf(tool, listing);
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
        report(err);
        continue;
      }
      listings.push(listing);
      entries.set(tool.name, { tool, validator: undefined });
      continue;
    }
    const prepared = prepare(tool, options.limits, report);
    if ('problem' in prepared) continue;
    listings.push(prepared.listing);
    entries.set(tool.name, prepared.entry);
  }
  const rules = new Map<string, readonly HeaderDeclaration[]>();
  for (const [name, entry] of entries) {
    const found = declared.get(entry.tool);
    if (found !== undefined && found.length > 0) rules.set(name, found);
  }
  return { entries, list: { tools: listings }, rules };
}

/**
 * Builds the SDK's low-level `Server` serving `tools`, for one client connection: call it once per
 * connection (`server.connect(transport)`) with the same tool values. Each tool's schema is served
 * as the tool states it, whatever JSON Schema it is, and compiled once per tool value (a second
 * server of the same tools compiles nothing). A tool whose schema cannot be served (it does not
 * compile, a `pattern` included, or is not an object schema) is left out and reported through
 * `onError`; every other tool is served. Patterns of schemas from elsewhere (`rawTool`, plain
 * JSON Schema, remote tools) are matched in linear time; see `compileValidator`.
 *
 * A call's arguments are validated before the tool runs; a problem is an `isError` result reading
 * `Error: invalid arguments: ...`, not a protocol error, so the model can retry. A tool's failure
 * is an `isError` result `Error: <message>` (never a stack); an unknown tool name is a protocol
 * error (InvalidParams), as MCP specifies. Outputs map back to MCP content: text as text, data-URL
 * images as image content, inline files as embedded resources, files at a URL as resource links.
 * Progress is sent when the request carries a progressToken: a ProgressInfo's numbers as they are
 * (so progress proxied through a remote tool keeps them across a second hop), else a counter, with
 * the update's text as the message. The call is cancelled (its observable unsubscribed, its signal
 * aborted) when the client cancels the request or the connection closes.
 *
 * Questions: a tool's `context.elicit({ message, schema })` is an `elicitation/create` request to
 * the client that made the call, sent as part of that call (on its own stream over Streamable
 * HTTP), with the message and the schema as `requestedSchema`; the client's answer is the tool's.
 * A client that did not declare the elicitation capability is never asked: the question is
 * declined at once. When the call is cancelled while a question is open, the request is cancelled
 * too and the tool's question ends with `cancel`. A client's failure to answer (an error, content
 * that does not match the schema) ends the question with `cancel` and is reported to `onError`.
 *
 * Every call's context carries the client's `session`: `id` is unique per connection (the
 * transport's session id, or a generated one) and `client` the name and version the client gave
 * on initialize, so one tool value serving many clients can keep per-client state. Served
 * stateless (`serveHttp({ stateless: true })`), a call belongs to no session: `context.session` is
 * undefined.
 *
 * Annotations: the hints a tool states are served, the others omitted so MCP's defaults apply at
 * the client (an unstated hint is not a claim of harmlessness).
 *
 * Records: what a call's tool records (`context.record(...)`) travels to the client in the call's
 * result, failures included, as `_meta["io.agenttool/records"]`: a list of `{ ns, data }` in the
 * order recorded; a client from `connectMcp` writes them through the calling job's recorder. The
 * result is the only channel, so records reach the client when the call ends (not while it runs),
 * and those of a call the client cancels, which gets no result, or made after the call's result,
 * stay with `options.recorder`.
 *
 * Proxying: a remote tool (one with `remote` set: every tool of `connectMcp`, wrapped or not) is
 * listed as its server listed it, its arguments are left for its server to check, and its results,
 * failures (`isError`) included, are the server's results as they came (content,
 * `structuredContent`, `_meta`), so serving remote tools changes nothing a client sees: its
 * server's log messages go on as log messages (the server then declares `logging`, and the level
 * its client asks for filters them), a question its server asks goes back with the person's answer
 * as given (its server judges it), and records go only to a client that asks for them (see
 * `asksForRecords`).
 *
 * `tools` may be live, an Observable of the lists to serve (`remote.tools$` of `connectMcp`, or
 * several combined): the server declares `tools.listChanged`, serves the latest list, and tells a
 * connected client of each change (`notifications/tools/list_changed`, in 2025-11-25 sessions).
 * A list with a duplicate name is reported and the last good one served.
 *
 * @throws Error for an empty or duplicate tool name (of a list given as it is).
 */
export function createMcpServer(
  info: Implementation,
  tools: Iterable<Tool> | Observable<Iterable<Tool>>,
  options: McpServerOptions = {},
): Server {
  const onError = options.onError ?? reportOnStderr;
  const questionTimeout = questionTimeoutOf(options);
  const report = (error: Error): void => {
    try {
      onError(error);
    } catch {
      // A reporter that throws must not turn a contained fault into a crash.
    }
  };
  const live = isObservable(tools);
  const source = live ? sourceOf(tools) : undefined;
  const fixed = live ? undefined : readyToServe(tools, options, report);
  let made: { from: readonly Tool[]; served: Served } | undefined;
  /** What the server serves now: a live source's latest list, made ready once per list. */
  const current = (): Served => {
    if (fixed !== undefined) return fixed;
    const latest = source!.latest;
    if (made?.from !== latest) {
      try {
        made = { from: latest, served: readyToServe(latest, options, report) };
      } catch (err) {
        // A list this server cannot serve (a duplicate name): the last good one stays.
        report(err instanceof Error ? err : new Error(String(err)));
        made = { from: latest, served: made?.served ?? EMPTY };
      }
    }
    return made.served;
  };

  // A proxy passes its upstream servers' log messages on (see served-call.ts), so it declares
  // logging (and answers logging/setLevel); a server of local tools sends none.
  const proxies =
    options.declares?.logging ??
    (live ||
      options.logs !== undefined ||
      [...current().entries.values()].some((entry) => entry.tool.remote !== undefined));
  const listChanged = options.declares?.toolsListChanged ?? live;
  const tasks = options.tasks;
  if (tasks !== undefined) checkTaskOptions(tasks);
  const server = new (tasks === undefined ? Server : TaskServer)(info, {
    capabilities: {
      tools: listChanged ? { listChanged: true } : {},
      ...(proxies ? { logging: {} } : {}),
      ...(tasks === undefined ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
    },
    ...(options.listCache === undefined ? {} : { cacheHints: { 'tools/list': options.listCache } }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  if (proxies) answerSetLevel(server);
  options.logs?.add(server);
  options.roots?.add(server);
  // A list that is declared not to change (`declares.toolsListChanged` false) is still read live,
  // but no client is told of a change.
  if (source !== undefined && listChanged) {
    source.servers.add(new WeakRef(server));
    sourceOfServer.set(server, source);
  }
  const fallbackId = options.sessionId ?? randomUUID();
  let session: Session | undefined;
  const sessionOf = (transportId: string | undefined): Session | undefined => {
    if (session !== undefined) return session;
    // A stateless request belongs to no session: a random id would lie about it.
    if (isStateless(server)) return undefined;
    const client = server.getClientVersion();
    const made: Session = Object.freeze(
      client === undefined
        ? { id: transportId ?? fallbackId }
        : {
            id: transportId ?? fallbackId,
            client: Object.freeze({ name: client.name, version: client.version }),
          },
    );
    // Before initialize the client is unknown; keep asking until it is.
    if (client !== undefined) session = made;
    return made;
  };

  headerRules.set(server, () => current().rules);
  server.setRequestHandler('tools/list', () => current().list);
  /**
   * What a call of `entry` needs, with what the request that speaks for it gives: one object, made
   * once per call.
   */
  const servedOf = (
    entry: Entry,
    call: ServedCall['call'],
    speaker: Pick<
      ServedCall,
      'session' | 'signal' | 'progressToken' | 'notify' | 'elicitor' | 'log' | 'sendRecords'
    > &
      Partial<Pick<ServedCall, 'modes'>>,
  ): ServedCall => ({
    tool: entry.tool,
    validator: entry.validator,
    call,
    session: speaker.session,
    signal: speaker.signal,
    progressToken: speaker.progressToken,
    notify: speaker.notify,
    elicitor: speaker.elicitor,
    modes: speaker.modes,
    log: speaker.log,
    report,
    passThrough: entry.tool.remote !== undefined,
    sendRecords: speaker.sendRecords,
    recorder: options.recorder,
    maxRecords: options.maxRecords,
    maxRecordBytes: options.maxRecordBytes,
    maxQuestions: options.maxQuestions,
    peer: () => ({
      protocolVersion: server.getNegotiatedProtocolVersion(),
      sessionId: speaker.session?.id,
    }),
  });
  if (tasks !== undefined) {
    taskStores.set(server, (tool) => {
      const task = current().entries.get(tool)?.tool;
      const served = task === undefined ? undefined : taskOf(task);
      return served === true || served === 'required' ? tasks.store : undefined;
    });
    const host = () => taskHostOf(tasks.store, report);
    const gate = (ctx: { mcpReq: unknown }, method: string): void => {
      if (!declaresTasks(clientCapabilitiesOf(server, ctx)))
        throw tasksRequired(`${method} is the tasks extension's`);
    };
    server.setRequestHandler(
      'tasks/get',
      { params: GetTaskRequestV2Schema.shape.params },
      async (params, ctx) => {
        gate(ctx, 'tasks/get');
        return wireTask(await host().get(params.taskId)) as unknown as Record<string, unknown>;
      },
    );
    server.setRequestHandler(
      'tasks/update',
      // The SDK lifts `inputResponses` out of a request's params (MCP 2026-07-28's multi
      // round-trip field) into ctx.mcpReq.inputResponses: checked there.
      { params: UpdateTaskRequestV2Schema.shape.params.omit({ inputResponses: true }) },
      async (params, ctx) => {
        gate(ctx, 'tasks/update');
        const sent = (server as TaskServer).rawInput.take(ctx.mcpReq.id);
        if (sent !== undefined)
          throw protocolError(
            ProtocolErrorCode.InvalidParams,
            `tasks/update: inputResponses must be an object of answers by question key, got ${sent}`,
          );
        // An answer to a key not open is ignored (the extension's rule), whatever it holds: only
        // the answers the task waits for are read, each as an elicitation result.
        const responses = ctx.mcpReq.inputResponses as unknown;
        if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
          throw protocolError(
            ProtocolErrorCode.InvalidParams,
            'tasks/update: inputResponses must be an object of answers by question key',
          );
        await host().update(params.taskId, responses as Record<string, unknown>);
        return {};
      },
    );
    server.setRequestHandler(
      'tasks/cancel',
      { params: CancelTaskRequestV2Schema.shape.params },
      async (params, ctx) => {
        gate(ctx, 'tasks/cancel');
        await host().cancel(params.taskId);
        return {};
      },
    );
  }
  server.setRequestHandler('tools/call', (request, ctx) => {
    const name = request.params.name;
    const entry = current().entries.get(name);
    if (entry === undefined) {
      if (options.unknownTool !== undefined)
        return options.unknownTool(name, request.params.arguments);
      throw protocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}"`);
    }
    const needs = options.requiredCapabilities;
    const required = needs !== undefined && Object.hasOwn(needs, name) ? needs[name] : undefined;
    const missing =
      required === undefined
        ? undefined
        : missingCapabilities(required, clientCapabilitiesOf(server, ctx));
    if (missing !== undefined)
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing },
        `tool "${name}" needs the client capabilities ${JSON.stringify(missing)}, which this client did not declare`,
      );
    const args = request.params.arguments;
    let text: string;
    try {
      text = args === undefined ? '' : JSON.stringify(args);
    } catch {
      // JSON.stringify recurses: arguments thousands of levels deep overflow the stack here,
      // before the validator's depth limit sees them.
      return failure(new ValidationError('', 'arguments are nested too deeply'));
    }
    const modern = isModern(server);
    const task = taskOf(entry.tool);
    if (tasks !== undefined && task !== undefined && task !== false) {
      const capabilities = clientCapabilitiesOf(server, ctx);
      const declares = modern && declaresTasks(capabilities);
      if (declares && ctx.mcpReq.requestState() === undefined) {
        // Arguments a task would fail on at once are answered at once.
        try {
          entry.precheck?.parse(text);
        } catch (err) {
          return failure(err);
        }
        const call = callOf(String(ctx.mcpReq.id), text, request.params._meta);
        const sendRecords = asksForRecords(request.params._meta);
        const modes = elicitationModes(server, capabilities);
        const token = callTokenOf(request.params._meta);
        if (modes.form || modes.url) {
          // A client that answers questions: the tool's opening questions are asked in the request,
          // and the call becomes a task once it goes on past them (opening-questions.ts).
          const held = new HeldCall(name, questionTimeout, ctx.mcpReq.inputResponses, token, modes);
          heldCalls.set(server, held);
          const opening = new OpeningCall(held, () =>
            taskHostOf(tasks.store, report).create(name, tasks, modes, token),
          );
          const served = servedOf(entry, call, {
            session: undefined,
            signal: opening.signal,
            progressToken: opening.progressToken,
            notify: opening.notify,
            elicitor: opening.elicitor,
            log: undefined,
            sendRecords,
          });
          void refusalAsFailure(runServedCall({ ...served, onFailure: opening.onFailure })).then(
            (result) => opening.finish(result),
          );
          return answerOpening(server, opening, ctx, true) as unknown as CallToolResult;
        }
        return taskHostOf(tasks.store, report)
          .start(name, tasks, modes, token, (speaker) =>
            refusalAsFailure(
              runServedCall({
                ...servedOf(entry, call, {
                  session: undefined,
                  signal: speaker.signal,
                  progressToken: speaker.progressToken,
                  notify: speaker.notify,
                  elicitor: speaker.elicitor,
                  log: undefined,
                  sendRecords,
                }),
                onFailure: speaker.onFailure,
              }),
            ),
          )
          .then(({ result, task }) => {
            startedTasks.set(server, task);
            return result as unknown as CallToolResult;
          });
      }
      // A retry (requestState) of a client that takes tasks carries on its call below.
      if (!declares && task === 'required')
        throw tasksRequired(`tool "${name}" runs only as a task`);
    }
    // A modern client that declared elicitation may be asked: its calls are held while it answers.
    // Any other call runs as below, its questions declined at once.
    const modes = modern ? elicitationModes(server, clientCapabilitiesOf(server, ctx)) : undefined;
    if (
      modes !== undefined &&
      (modes.form || modes.url || ctx.mcpReq.requestState() !== undefined)
    ) {
      const signing = stateSigningOf(server);
      const state = ctx.mcpReq.requestState<unknown>();
      if (state !== undefined) {
        // A retry: the answers of a held call's questions.
        const opened = openState(state, signing.key);
        if (typeof opened === 'string')
          throw protocolError(ProtocolErrorCode.InvalidParams, opened);
        if (opened.tool !== name)
          throw protocolError(
            ProtocolErrorCode.InvalidParams,
            `requestState belongs to a call of "${opened.tool}", not "${name}"`,
          );
        const call = heldCall(opened.call);
        if (call === undefined)
          throw protocolError(
            ProtocolErrorCode.InvalidParams,
            `the call this requestState names has ended or expired: call "${name}" again`,
          );
        call.deliver(ctx.mcpReq.inputResponses);
        const opening = openingOf(call);
        if (opening !== undefined)
          return answerOpening(
            server,
            opening,
            ctx,
            declaresTasks(clientCapabilitiesOf(server, ctx)),
          ) as unknown as CallToolResult;
        return call.answer(ctx, signing);
      }
      const call = new HeldCall(
        name,
        questionTimeout,
        ctx.mcpReq.inputResponses,
        callTokenOf(request.params._meta),
        modes,
      );
      const served = servedOf(entry, callOf(String(ctx.mcpReq.id), text, request.params._meta), {
        session: undefined,
        signal: call.signal,
        progressToken: call.progressToken,
        notify: call.notify,
        elicitor: call.elicitor,
        modes,
        log: call.log,
        sendRecords: asksForRecords(request.params._meta),
      });
      heldCalls.set(server, call);
      void Promise.resolve(runServedCall(served)).then(
        (result) => call.finish(result),
        (refusal: Error) => call.refuse(refusal),
      );
      return call.answer(ctx, signing);
    }
    const served = servedOf(entry, callOf(String(ctx.mcpReq.id), text, request.params._meta), {
      // MCP 2026-07-28 has no sessions.
      session: modern ? undefined : sessionOf(ctx.sessionId),
      signal: ctx.mcpReq.signal,
      progressToken: ctx.mcpReq._meta?.progressToken,
      notify: ctx.mcpReq.notify,
      elicitor: modern
        ? undefined
        : clientElicitor(
            server,
            ctx,
            report,
            request.params._meta,
            entry.tool.remote !== undefined,
          ),
      modes: modern ? undefined : elicitationModes(server),
      log: (params) =>
        sendCallLog(ctx, callTokenOf(request.params._meta), modern ? undefined : server, params),
      sendRecords: asksForRecords(request.params._meta),
    });
    return runServedCall(served);
  });
  return server;
}
