/**
 * What a remote tool and its calls need from the connection, and what one call sends:
 * the types RemoteTool and RemoteCall share with McpRemote.
 *
 * @module
 */
import type { Client, LoggingMessageNotification } from '@modelcontextprotocol/client';
import type { QuestionModes } from '../mcp-shared/relayed-modes.js';
import type { RelayedRoot } from '../mcp-shared/relayed-roots.js';
import type {
  ElicitRequest,
  ElicitResult,
  Replay,
  ResourceFunction,
  ResourceName,
  TraceContext,
} from '../../lib/contract.js';
import type { CallDeadlines, TimedCall } from './call-deadlines.js';
import type { RoutedCall } from './ordered-transport.js';
import type { McpPeer, McpSpan } from '../../lib/telemetry/mcp-spans.js';
import type { TaskRelay } from '../mcp-shared/task-relay.js';
import type { TaskGeneration } from './remote-task.js';

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
  /**
   * Asks the client its context relays for (a proxy's call, see relayed-roots.ts) for its roots,
   * under `key` when given: its roots, or undefined when it gave none. Undefined when the call has
   * ended or its context has no client to ask.
   */
  roots(key?: string): Promise<readonly RelayedRoot[] | undefined> | undefined;
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
  /** Whether the connection speaks MCP 2026-07-28. */
  readonly modern: boolean;
  /**
   * Whether a call is cancelled by ending its request, which the SDK does for a request whose
   * signal aborts: MCP 2026-07-28 over a transport that gives each request a stream of its own
   * (Streamable HTTP), closed to end it. Otherwise a call is cancelled by `notifications/cancelled`
   * (`CallRouter.cancel`), and asks the SDK for no signal.
   */
  readonly endsByStream: boolean;
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

/** What one call sends, each time it is sent. */
export interface CallRequest {
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
