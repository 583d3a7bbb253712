/**
 * `agenttool/mcp/server`: Tool values served over MCP, on stdio or Streamable HTTP.
 *
 * @module agenttool/mcp/server
 */
export { createMcpServer, type McpServerOptions } from './create-mcp-server.js';
export { DEFAULT_QUESTION_TIMEOUT, DEFAULT_RETRY_TIMEOUT } from './held/held-calls.js';
export { DEFAULT_MAX_HELD_CALLS, DEFAULT_MAX_TASKS } from './held/held-call-room.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_INIT_TIMEOUT,
  McpHttpHandler,
  type McpHttpHandlerOptions,
} from './http/mcp-http-handler.js';
export {
  HTTP_DEFAULTS,
  isLoopbackHost,
  serveHttp,
  type McpHttpServer,
  type ServeHttpOptions,
} from './http/serve-http.js';
export { ServerLogs } from './server-logs.js';
export { RootsRelay, type RelayedRoot } from './roots-relay.js';
export { serveStdio, type McpStdioServer } from './serve-stdio.js';
// Tasks (MCP's tasks extension): where they live, and how long they last.
export {
  memoryTaskStore,
  isTerminal,
  type MemoryTaskStoreOptions,
  type StoredTask,
  type TaskMessage,
  type TaskStatus,
  type TaskStore,
  type TaskView,
} from './tasks/task-store.js';
export { TASK_DEFAULTS, TASKS_EXTENSION, type TaskOptions } from './tasks/task-host.js';
export { RECORDS_META_KEY } from '../mcp-shared/mcp-records.js';
export { RESOURCE_META_KEY, SEQUENTIAL_META_KEY } from '../mcp-shared/ordering-hints.js';
// The SDK's types this API uses, so that a module exporting what it returns names them through
// `agenttool/mcp/server` (under pnpm the SDK is not the application's to name).
export type { ClientCapabilities, Implementation, Server } from '@modelcontextprotocol/server';
