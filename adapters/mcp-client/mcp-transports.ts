/**
 * Client transports for the common cases, so a host need not import the SDK to connect.
 *
 * @module
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The SDK's Transport interface: anything {@link connectMcp} can talk over. */
export type McpTransport = Transport;

/** A server to start as a child process and talk to over its stdin and stdout. */
export interface StdioServerCommand {
  /** The program to run. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /**
   * Added to the SDK's small default environment (PATH, HOME, ...), not to the whole of ours:
   * pass `{ ...process.env, ...more }` to give the server the user's environment (the CLI does).
   */
  env?: Record<string, string>;
  /** Its working directory (default: ours). */
  cwd?: string;
  /** Where the server's stderr goes (default `inherit`). */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /**
   * Largest message accepted, in bytes (default 10 MiB, the SDK's); a larger one closes the
   * connection and fails the calls waiting on it.
   */
  maxBufferSize?: number;
}

/**
 * A stdio transport for `server`; the process starts when {@link connectMcp} connects and is
 * stopped (stdin closed, then SIGTERM, then SIGKILL) when the remote closes.
 */
export function stdioTransport(server: StdioServerCommand): McpTransport {
  return new StdioClientTransport(server);
}

/**
 * A Streamable HTTP transport for the server at `url` (e.g. `http://127.0.0.1:3000/mcp`), with
 * `headers` on every request (an `Authorization`, say).
 */
export function httpTransport(
  url: string | URL,
  options: { headers?: Record<string, string> } = {},
): McpTransport {
  const requestInit = options.headers === undefined ? undefined : { headers: options.headers };
  return new StreamableHTTPClientTransport(
    new URL(url),
    requestInit === undefined ? {} : { requestInit },
  );
}
