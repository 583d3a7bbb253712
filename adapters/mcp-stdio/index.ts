/**
 * `agenttool/mcp/stdio`: the stdio transport for `connectMcp`, which starts an MCP server as a
 * child process (Node only; `agenttool/mcp/client` itself bundles for the browser).
 *
 * @module agenttool/mcp/stdio
 */
import { installCallSpans } from '../../lib/telemetry/call-spans.js';

// Node only, like the package root: spans once the application registers a provider.
installCallSpans();

export { stdioTransport, type StdioServerCommand } from './stdio-transport.js';
