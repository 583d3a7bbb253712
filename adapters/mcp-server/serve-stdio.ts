/**
 * `serveStdio()`: a tool set served over this process's stdin and stdout.
 *
 * @module
 */
import { isObservable, type Observable } from 'rxjs';
import type { Implementation } from '@modelcontextprotocol/server';
import type { Tool } from '../../lib/contract.js';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.js';
import { connectStdio } from './stdio-connection.js';

/** A tool set served over stdio (see `serveStdio`). */
export interface McpStdioServer {
  /** Resolves once the connection has ended: stdin ended (the client went away) or `close()`. */
  readonly closed: Promise<void>;
  /** Ends the connection: every running call is cancelled. */
  close(): Promise<void>;
}

/**
 * Serves `tools` over stdio, the transport an MCP client application (an editor, an agent) uses
 * when it starts the server as a child process. Both eras of MCP are served: a client that opens
 * with `initialize` is served as MCP 2025-11-25 and before, one that opens with `server/discover`
 * or a request carrying `_meta["io.modelcontextprotocol/protocolVersion"]` as 2026-07-28; the
 * opening picks the era for the connection. Resolves once it listens. When stdin ends (the client
 * went away), the server closes and every running call is cancelled.
 *
 * stdout carries the protocol: anything else written there corrupts it, so log to stderr.
 *
 * @throws as {@link createMcpServer} does, before anything is read.
 */
export function serveStdio(
  info: Implementation,
  tools: Iterable<Tool> | Observable<Iterable<Tool>>,
  options: McpServerOptions = {},
): Promise<McpStdioServer> {
  // A live source is followed by each Server (see createMcpServer); a list is read once.
  const list = isObservable(tools) ? tools : [...tools];
  // Built once now, so that a bad tool set throws, and a tool left out is reported, before
  // anything is read (each tool is prepared once, whatever number of Servers serve it).
  createMcpServer(info, list, options);
  return Promise.resolve(connectStdio(() => createMcpServer(info, list, options)));
}
