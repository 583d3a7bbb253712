/**
 * The errors a remote tool's call fails with.
 *
 * @module
 */
import type { CallToolResult } from './mcp-types.js';
import { describeThrown, oneLine } from '../../lib/errors.js';

/**
 * The server answered the call with `isError`: the tool failed. The message is the result's text
 * (its text blocks joined by "\n", or `tool call failed`) without the `Error: ` a server puts
 * before it for its model, which `toOutputItems` puts back once: the model reads what the server
 * wrote, and a log line reads `RemoteToolError: disk full`, never `Error: Error: disk full`.
 * `details` holds the raw MCP result.
 */
export class RemoteToolError extends Error {
  /** Always `remote_tool`: the tool ran on its server and failed there (see {@link McpErrorCode}). */
  readonly code = 'remote_tool' as const;
  /** The local name of the tool that failed. */
  readonly tool: string;
  /** The raw MCP result, for the application; never sent to the model. */
  readonly details: CallToolResult;
  constructor(tool: string, message: string, details: CallToolResult) {
    super(message.startsWith('Error: ') ? message.slice('Error: '.length) : message);
    this.name = 'RemoteToolError';
    this.tool = tool;
    this.details = details;
  }
}

/**
 * What kind of failure an MCP call or connection met, stable across versions (unlike the
 * message), for an application to switch on:
 * - `remote_tool`: the tool ran on its server and failed there ({@link RemoteToolError});
 * - `closed`: the application closed the connection (`McpRemote.close`);
 * - `connection_lost`: the connection, or the call's response, broke before the answer;
 * - `timeout`: the call's `timeout` passed with no progress and no answer;
 * - `protocol`: the server answered with a JSON-RPC error (its code in `rpcCode`);
 * - `http`: the server answered an HTTP error (its status in `status`: a 401 no authorization
 *   fixed, a 503 still busy after the retries, ...);
 * - `invalid_result`: the answer is not a valid MCP result, or one JSON cannot carry;
 * - `record`: a record the server sent could not be written through the job's recorder;
 * - `page_declined`: the server needs a page visited first (-32042) and the person declined it;
 * - `connect`: the connection could not be opened;
 * - `failed`: anything else (the cause is on the error).
 */
export type McpErrorCode =
  | 'remote_tool'
  | 'closed'
  | 'connection_lost'
  | 'timeout'
  | 'protocol'
  | 'http'
  | 'invalid_result'
  | 'record'
  | 'page_declined'
  | 'connect'
  | 'failed';

/**
 * The call did not get an answer: the connection closed, the request timed out, the server
 * answered with a protocol error or with a result that is not a valid MCP result. The message is
 * `mcp: connection closed` after {@link McpRemote.close}, and `mcp: call "<name>": <cause>`
 * otherwise, with the original error as `cause`; `code` says which kind (see
 * {@link McpErrorCode}).
 */
export class McpCallError extends Error {
  /** The local name of the tool, or "" when the failure is the connection's. */
  readonly tool: string;
  /** What kind of failure it is; stable across versions, unlike the message. */
  readonly code: McpErrorCode;
  /** The JSON-RPC error code the server answered, when `code` is `protocol`. */
  readonly rpcCode?: number;
  /** The HTTP status the server answered, when `code` is `http`. */
  readonly status?: number;
  constructor(tool: string, message: string, cause?: unknown, code?: McpErrorCode) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'McpCallError';
    this.tool = tool;
    const kind = kindOf(cause);
    this.code = code ?? kind.code;
    if (this.code === 'protocol' && kind.rpcCode !== undefined) this.rpcCode = kind.rpcCode;
    if (this.code === 'http' && kind.status !== undefined) this.status = kind.status;
  }
}

/** Whether `err` says the call's response broke before its answer (see AnswerWatch). */
export function isConnectionLost(err: unknown): boolean {
  const message = err instanceof Error ? err.message : undefined;
  return message !== undefined && /\bconnection lost: /.test(message);
}

/** The kind of failure `cause` is, read from what the SDK and the transport throw. */
function kindOf(cause: unknown): { code: McpErrorCode; rpcCode?: number; status?: number } {
  const { code, status, data } = (cause ?? {}) as {
    code?: unknown;
    status?: unknown;
    data?: { httpStatus?: unknown } | null;
  };
  // A busy answer the client turned into a JSON-RPC error (see AnswerWatch): its HTTP status.
  if (typeof data?.httpStatus === 'number') return { code: 'http', status: data.httpStatus };
  if (issuesOf(cause) !== undefined || code === 'INVALID_RESULT') return { code: 'invalid_result' };
  if (code === 'REQUEST_TIMEOUT') return { code: 'timeout' };
  if (isConnectionLost(cause)) return { code: 'connection_lost' };
  if (code === 'CONNECTION_CLOSED') return { code: 'connection_lost' };
  if (typeof status === 'number') return { code: 'http', status };
  if (typeof code === 'number') return { code: 'protocol', rpcCode: code };
  return { code: 'failed' };
}

/** The failure of a call made on, or running during, a connection closed by the application. */
export function closedError(tool = ''): McpCallError {
  return new McpCallError(tool, 'mcp: connection closed', undefined, 'closed');
}

/** The issues of a schema error (the SDK's check of a result): on it, or in its message. */
function issuesOf(cause: unknown): unknown {
  const own = (cause as { issues?: unknown } | null)?.issues;
  if (own !== undefined) return own;
  const message = (cause as { message?: unknown } | null)?.message;
  // The SDK's v2 line writes them into its message: `Invalid result for tools/call: [...]`, or
  // (a protocol error it raises) `Invalid tools/call result: [...]`.
  const listed =
    typeof message === 'string'
      ? /^(?:MCP error -?\d+: )?Invalid (?:result for [^:]+|[\w/]+ result): (\[[\s\S]*\])$/.exec(
          message,
        )
      : null;
  if (listed === null) return undefined;
  try {
    return JSON.parse(listed[1]!) as unknown;
  } catch {
    return undefined;
  }
}

/** The message of the JSON-RPC error a response body holds, if it holds one. */
function jsonRpcMessageOf(body: string): string | undefined {
  if (body.length > 65_536) return undefined;
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A cause as one short phrase: the first issue of a schema error (`invalid result: <path>:
 * <problem>`), a JSON-RPC error with its code (`MCP error <code>: <message>`), else its message.
 */
export function describeCause(cause: unknown): string {
  const issues = issuesOf(cause);
  if (Array.isArray(issues) && issues.length > 0) {
    const issue = issues[0] as { path?: unknown; message?: unknown };
    const path = Array.isArray(issue.path) ? issue.path.join('.') : '';
    return `invalid result: ${path === '' ? '' : `${path}: `}${String(issue.message)}`;
  }
  let text = oneLine(describeThrown(cause));
  // An HTTP error the SDK read the body of (a 401, a 503): the server's own words, when it gave a
  // JSON-RPC error there.
  const body = (cause as { data?: { text?: unknown } } | null)?.data?.text;
  const said = typeof body === 'string' ? jsonRpcMessageOf(body) : undefined;
  if (said !== undefined && !text.includes(said)) text = `${text}: ${oneLine(said)}`;
  const code = (cause as { code?: unknown } | null)?.code;
  // The peer's JSON-RPC error (the SDK's ProtocolError): its code says what kind.
  if (typeof code === 'number' && !text.startsWith('MCP error '))
    return `MCP error ${code}: ${text}`;
  return text;
}

/**
 * The failure of a call whose request failed with `cause`; a result that does not match MCP's
 * schema reads `invalid result: <path>: <problem>` (its first problem). `prefix` goes before the
 * cause's description.
 */
export function callError(
  tool: string,
  cause: unknown,
  prefix = '',
  code?: McpErrorCode,
): McpCallError {
  return new McpCallError(
    tool,
    `mcp: call "${tool}": ${prefix}${describeCause(cause)}`,
    cause,
    code,
  );
}
