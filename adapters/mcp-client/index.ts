/**
 * `agenttool/mcp/client`: an MCP server's tools as Tool values.
 *
 * @module agenttool/mcp/client
 */
export { connectMcp, McpRemote, type McpClientOptions } from './connect-mcp.js';
export { McpCallError, RemoteToolError } from '../mcp-shared/mcp-errors.js';
export { httpTransport, type McpTransport } from './mcp-transports.js';
export { RemoteTool } from './remote-tool.js';
export type { McpRoot, McpRoots } from './client-roots.js';
export type { McpLogMessage } from './server-log.js';
export { RECORDS_META_KEY } from '../mcp-shared/mcp-records.js';
