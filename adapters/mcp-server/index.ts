/**
 * `agenttool/mcp/server`: Tool values served over MCP, on stdio or Streamable HTTP.
 *
 * @module agenttool/mcp/server
 */
export { createMcpServer, type McpServerOptions } from './create-mcp-server.js';
export { McpHttpHandler, type McpHttpHandlerOptions } from './mcp-http-handler.js';
export {
  isLoopbackHost,
  serveHttp,
  type McpHttpServer,
  type ServeHttpOptions,
} from './serve-http.js';
export { serveStdio } from './serve-stdio.js';
