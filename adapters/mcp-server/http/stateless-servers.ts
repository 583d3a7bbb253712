/**
 * The Servers that answer one stateless request each: what tells `createMcpServer` that its calls
 * belong to no session.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/server';

const stateless = new WeakSet<Server>();

/** Marks `server` as serving a stateless request: its calls get no `context.session`. */
export function markStateless(server: Server): void {
  stateless.add(server);
}

/** Whether `server` serves a stateless request (see `McpHttpHandlerOptions.stateless`). */
export function isStateless(server: Server): boolean {
  return stateless.has(server);
}
