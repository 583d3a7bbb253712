/**
 * `agenttool/mcp/stdio`: the stdio transport for `connectMcp`, which starts an MCP server as a
 * child process (Node only; `agenttool/mcp/client` itself bundles for the browser).
 *
 * @module agenttool/mcp/stdio
 */
export { stdioTransport, type StdioServerCommand } from './stdio-transport.js';
