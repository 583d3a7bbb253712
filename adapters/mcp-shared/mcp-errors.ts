/**
 * The errors a remote tool's call fails with.
 *
 * @module
 */
import type { CallToolResult } from './mcp-types.js';
import { describeThrown, oneLine } from '../../lib/errors.js';

/**
 * The server answered the call with `isError`: the tool failed. The message is the result's text
 * (its text blocks joined by "\n", or `tool call failed`), which is what the model reads;
 * `details` holds the raw MCP result.
 */
export class RemoteToolError extends Error {
  /** The local name of the tool that failed. */
  readonly tool: string;
  /** The raw MCP result, for the application; never sent to the model. */
  readonly details: CallToolResult;
  constructor(tool: string, message: string, details: CallToolResult) {
    super(message);
    this.name = 'RemoteToolError';
    this.tool = tool;
    this.details = details;
  }
}

/**
 * The call did not get an answer: the connection closed, the request timed out, the server
 * answered with a protocol error or with a result that is not a valid MCP result. The message is
 * `mcp: connection closed` after {@link McpRemote.close}, and `mcp: call "<name>": <cause>`
 * otherwise, with the original error as `cause`.
 */
export class McpCallError extends Error {
  /** The local name of the tool, or "" when the failure is the connection's. */
  readonly tool: string;
  constructor(tool: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'McpCallError';
    this.tool = tool;
  }
}

/** The failure of a call made on, or running during, a connection closed by the application. */
export function closedError(tool = ''): McpCallError {
  return new McpCallError(tool, 'mcp: connection closed');
}

/** The issues of a schema error (the SDK's check of a result): on it, or in its message. */
function issuesOf(cause: unknown): unknown {
  const own = (cause as { issues?: unknown } | null)?.issues;
  if (own !== undefined) return own;
  const message = (cause as { message?: unknown } | null)?.message;
  // The SDK's v2 line writes them into its message: `Invalid result for tools/call: [...]`.
  const listed =
    typeof message === 'string' ? /^Invalid result for [^:]+: (\[[\s\S]*\])$/.exec(message) : null;
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
export function callError(tool: string, cause: unknown, prefix = ''): McpCallError {
  return new McpCallError(tool, `mcp: call "${tool}": ${prefix}${describeCause(cause)}`, cause);
}
