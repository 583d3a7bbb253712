/**
 * A remote MCP tool as a Tool value.
 *
 * @module
 */
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { Observable } from 'rxjs';
import { ValidationError } from '../../lib/errors.js';
import { describeValue } from '../../lib/validation/format.js';
import type { ToolRecord } from '../../lib/records.js';
import type { JsonSchema } from '../../lib/open-responses.js';
import type {
  Annotations,
  Confinement,
  Replay,
  ResourceFunction,
  ResourceName,
  Tool,
  ToolCall,
  ToolContext,
  ToolEvent,
} from '../../lib/contract.js';
import { annotationsFromMcp } from '../mcp-shared/mcp-annotations.js';
import { closedError } from '../mcp-shared/mcp-errors.js';
import { taskRelayOf, type TaskRelay } from '../mcp-shared/task-relay.js';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { openMcpSpan } from '../../lib/telemetry/span-hook.js';
import { listedAsDetached } from '../mcp-shared/mcp-detach.js';
import { recordedTask, TASKS_EXTENSION, type TaskRecord } from './remote-task.js';
import {
  headerDeclarations,
  paramHeaders,
  type HeaderDeclaration,
} from '../mcp-shared/mcp-param-headers.js';
import type { CallRequest, RemoteClaims, RemoteConnection } from './remote-connection.js';
import { RemoteCall } from './remote-call.js';

export type {
  CallRouter,
  InFlightCall,
  RemoteClaims,
  RemoteConnection,
} from './remote-connection.js';

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

/** How many times a call of a tool whose replay is safe is sent again after its response broke. */
const MAX_REISSUES = 2;
