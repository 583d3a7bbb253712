/**
 * The options of `createMcpServer`, in a file of their own: what a server of tools may be told.
 *
 * @module
 */
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/server';
import type { Recorder } from '../../lib/records.js';
import type { ArgumentLimits } from '../../lib/validation/validation.js';
import type { ServerLogs } from './server-logs.js';
import type { RootsRelay } from './roots-relay.js';
import type { TaskOptions } from './tasks/task-host.js';

/** Options of `createMcpServer`; every field is optional. */
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
  /** Limits on a call's raw argument text (the validator's defaults: 1 MiB, nesting 256). */
  limits?: ArgumentLimits | undefined;
  /**
   * The session id when the transport has none (stdio, in-memory); default a random UUID, one per
   * Server. A transport with sessions (Streamable HTTP) always gives its own.
   */
  sessionId?: string | undefined;
  /**
   * Told of faults that belong to no call's result, so that they never take the process down:
   * a tool left out because its schema cannot be served (a `SchemaError` naming it,
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
}
