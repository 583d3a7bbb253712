/**
 * A remote MCP tool as a Tool value.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CallToolResult,
  LoggingMessageNotification,
  Progress,
  Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { Observable } from 'rxjs';
import { CancelledError, ValidationError } from '../../lib/errors.js';
import type { JsonSchema } from '../../lib/open-responses.js';
import type {
  Annotations,
  Confinement,
  ProgressInfo,
  Tool,
  ToolCall,
  ToolContext,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { annotationsFromMcp } from '../mcp-shared/mcp-annotations.js';
import { errorTextOf, resultFromMcp } from '../mcp-shared/mcp-content.js';
import { callError, closedError, RemoteToolError } from '../mcp-shared/mcp-errors.js';
import { logText } from './server-log.js';

/** A call waiting for its answer, which the connection fails when it closes. */
export interface InFlightCall {
  /** The local name of the tool called. */
  readonly tool: string;
  fail(error: Error): void;
  /** Emits a server log message as a progress event; false when the call has ended. */
  log(params: LoggingMessageNotification['params']): boolean;
}

/** What a remote tool needs from the connection it came from. */
export interface RemoteConnection {
  readonly client: Client;
  /** The SDK request timeout in ms; it restarts on every progress notification. */
  readonly requestTimeout: number;
  isClosed(): boolean;
  readonly inFlight: Set<InFlightCall>;
  /** The error a call still waiting fails with when the connection closes on its own. */
  lostError(tool: string): Error;
  /**
   * Resolves when a call that has its answer may return: once a pending tools/list refresh has
   * landed, or after the notification grace. Undefined when there is nothing to wait for.
   */
  settle(readOnly: boolean): Promise<unknown> | undefined;
}

/** The application's claims about a remote tool, which MCP has no field for. */
export interface RemoteClaims {
  sequential: boolean;
  resource: string;
  /** What confines every call of the tool, or undefined when the application claims nothing. */
  confinedBy: string | undefined;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : JSON.stringify(value);
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

function progressInfo(progress: Progress): ProgressInfo {
  const info: ProgressInfo = { progress: progress.progress };
  if (progress.total !== undefined) info.total = progress.total;
  if (progress.message !== undefined) info.message = progress.message;
  return info;
}

/**
 * One tool of a remote server. The schema is the server's, served verbatim and validated by the
 * server; the client only checks that the arguments are a JSON object. Annotations are the
 * server's hints (mapped with MCP's defaults); sequential, resource and confinement are the
 * application's claims alone, never the server's.
 */
export class RemoteTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly annotations?: Annotations;
  readonly sequential?: boolean;
  readonly resource?: string;
  readonly confined?: (args: string, context: ToolContext) => Confinement;
  /** The tool's definition as the server listed it. */
  readonly definition: McpTool;
  /** The same definition, as the Tool property that marks a tool standing for a remote one. */
  readonly remote: McpTool;
  private readonly readOnly: boolean;

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
    const annotations = annotationsFromMcp(definition);
    if (annotations !== undefined) this.annotations = annotations;
    this.readOnly = annotations?.readOnlyHint === true;
    if (claims.sequential) this.sequential = true;
    if (claims.resource !== '') this.resource = claims.resource;
    const by = claims.confinedBy;
    if (by !== undefined) this.confined = () => ({ confined: true, by });
  }

  /**
   * Calls the remote tool: each progress notification is a progress event (in the order sent),
   * the result the final event. An `isError` answer is a RemoteToolError, any other failure an
   * McpCallError. Unsubscribing before the answer cancels the request on the server.
   */
  execute(call: ToolCall, _context: ToolContext): Observable<ToolEvent> {
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
      let done = false;
      const controller = new AbortController();
      const waiting: InFlightCall = {
        tool: this.name,
        fail: (error) => {
          if (done) return;
          done = true;
          subscriber.error(error);
        },
        log: (params) => {
          if (done) return false;
          const details: Record<string, unknown> = { level: params.level, data: params.data };
          if (params.logger !== undefined) details.logger = params.logger;
          subscriber.next({ final: false, result: { output: logText(params.data), details } });
          return true;
        },
      };
      connection.inFlight.add(waiting);
      connection.client
        .callTool({ name: this.definition.name, arguments: args }, undefined, {
          signal: controller.signal,
          timeout: connection.requestTimeout,
          resetTimeoutOnProgress: true,
          onprogress: (progress) => {
            if (done) return;
            const info = progressInfo(progress);
            subscriber.next({
              final: false,
              result: { output: info.message ?? '', details: info },
            });
          },
        })
        .then(
          (answer) => {
            const result = answer as CallToolResult;
            connection.inFlight.delete(waiting);
            if (done) return;
            const finish = (): void => {
              if (done) return;
              done = true;
              if (result.isError === true) {
                subscriber.error(new RemoteToolError(this.name, errorTextOf(result), result));
                return;
              }
              let mapped: ToolResult;
              try {
                mapped = resultFromMcp(result);
              } catch (err) {
                // structuredContent too deep for JSON.stringify: the server's fault, this call's end.
                subscriber.error(callError(this.name, err, 'invalid result: '));
                return;
              }
              subscriber.next({ final: true, result: mapped });
              subscriber.complete();
            };
            const settled = connection.settle(this.readOnly);
            if (settled === undefined) finish();
            else settled.then(finish, finish);
          },
          (err: unknown) => {
            connection.inFlight.delete(waiting);
            waiting.fail(
              connection.isClosed() ? connection.lostError(this.name) : callError(this.name, err),
            );
          },
        );
      return () => {
        connection.inFlight.delete(waiting);
        if (done) return;
        done = true;
        controller.abort(new CancelledError());
      };
    });
  }
}
