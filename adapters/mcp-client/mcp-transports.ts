/**
 * The Streamable HTTP client transport, so an application need not import the SDK to connect. The stdio
 * transport is in `agenttool/mcp/stdio` (Node only).
 *
 * @module
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The SDK's Transport interface: anything {@link connectMcp} can talk over. */
export type McpTransport = Transport;

/**
 * A Streamable HTTP transport for the server at `url` (e.g. `http://127.0.0.1:3000/mcp`), with
 * `headers` on every request (an `Authorization`, say).
 */
export function httpTransport(
  url: string | URL,
  options: { headers?: Record<string, string> } = {},
): McpTransport {
  const requestInit = options.headers === undefined ? undefined : { headers: options.headers };
  return new StreamableHTTPClientTransport(
    new URL(url),
    requestInit === undefined ? {} : { requestInit },
  );
}
