/**
 * `serveStdio()`: a tool set served over this process's stdin and stdout.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../lib/contract.js';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.js';

/**
 * Serves `tools` over stdio, the transport an MCP client application (an editor, an agent) uses when it starts the server as a child
 * process. Resolves with the connected Server once it listens. When stdin ends (the client went
 * away), the server closes and every running call is cancelled.
 *
 * stdout carries the protocol: anything else written there corrupts it, so log to stderr.
 *
 * @throws as {@link createMcpServer} does, before anything is read.
 */
export async function serveStdio(
  info: Implementation,
  tools: Iterable<Tool>,
  options: McpServerOptions = {},
): Promise<Server> {
  const server = createMcpServer(info, tools, options);
  const stdin = process.stdin;
  await server.connect(new StdioServerTransport(stdin, process.stdout));
  const end = (): void => {
    stdin.off('end', end);
    stdin.off('close', end);
    server.close().catch(() => undefined);
  };
  stdin.on('end', end);
  stdin.on('close', end);
  return server;
}
