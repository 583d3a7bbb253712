/**
 * The stdio client transport: an MCP server started as a child process. Node only, so it lives in
 * its own entry point and `agenttool/mcp/client` stays bundlable for the browser.
 *
 * @module
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpTransport } from '../mcp-client/mcp-transports.js';

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
 * A stdio transport for `server`; the process starts when `connectMcp` connects and is stopped
 * (stdin closed, then SIGTERM, then SIGKILL) when the remote closes.
 */
export function stdioTransport(server: StdioServerCommand): McpTransport {
  return new StdioClientTransport(server);
}
