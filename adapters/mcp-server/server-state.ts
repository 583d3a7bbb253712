/**
 * What a server made by `createMcpServer` tells the HTTP handler that serves it, by server: the
 * header rules of its tools, the call it holds, the store of its tasks, the task it started.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/server';
import type { HeaderDeclaration } from '../mcp-shared/mcp-param-headers.js';
import type { HeldCall } from './held/held-calls.js';
import type { RunningTask } from './tasks/task-host.js';
import type { TaskStore } from './tasks/task-store.js';

/**
 * The `x-mcp-header` declarations of each served tool that has any, by server: what the HTTP
 * handler checks a 2026-07-28 call's `Mcp-Param-*` headers against (see {@link paramHeaderRules}).
 */
export const headerRules = new WeakMap<
  Server,
  () => ReadonlyMap<string, readonly HeaderDeclaration[]>
>();

/**
 * The `x-mcp-header` declarations of the tool `name` as `server` (from {@link createMcpServer})
 * serves it; undefined when it has none, or is not served.
 */
export function paramHeaderRules(
  server: Server,
  name: string,
): readonly HeaderDeclaration[] | undefined {
  return headerRules.get(server)?.().get(name);
}

/** The call of MCP 2026-07-28 each server (one per request in that era) started, if it asked. */
export const heldCalls = new WeakMap<Server, HeldCall>();

/**
 * The call `server` started for its 2026-07-28 request, when it is held for its client's retry
 * (see held-calls.ts): the HTTP handler counts it against its `maxHeldCalls`.
 */
export function heldCallOf(server: Server): HeldCall | undefined {
  const call = heldCalls.get(server);
  return call?.isHeld === true ? call : undefined;
}

/** Per server of tasks: the store it serves a tool's calls as tasks with, if it does. */
export const taskStores = new WeakMap<Server, (tool: string) => TaskStore | undefined>();

/**
 * The store `server` serves calls of `tool` as tasks with (to a client that declares the tasks
 * extension), or undefined when it serves them as plain calls: the HTTP handler's `maxTasks`.
 */
export function taskStoreOf(server: Server, tool: string): TaskStore | undefined {
  return taskStores.get(server)?.(tool);
}

/** The task each server (one per request in MCP 2026-07-28) started, if its call made one. */
export const startedTasks = new WeakMap<Server, RunningTask>();

/**
 * The task `server` started for its request, if any: the HTTP handler gives it the request's
 * admission slot to keep while the task runs (see `RunningTask.keepSlot`).
 */
export function startedTaskOf(server: Server): RunningTask | undefined {
  return startedTasks.get(server);
}
