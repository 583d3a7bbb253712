/**
 * The Streamable HTTP client transport, so an application need not import the SDK to connect. The stdio
 * transport is in `agenttool/mcp/stdio` (Node only).
 *
 * @module
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { AnswerWatch } from './answer-watch.js';

/** The SDK's Transport interface: anything {@link connectMcp} can talk over. */
export type McpTransport = Transport;

/**
 * A Streamable HTTP transport for the server at `url` (e.g. `http://127.0.0.1:3000/mcp`), with
 * `headers` on every request (an `Authorization`, say).
 *
 * A request whose response ends before its answer (the server died mid-call, or the load balancer
 * in front lost it) fails at once with `connection lost: ...`, instead of waiting for its timeout;
 * an error page in place of an answer (a balancer's 502) fails the request as `HTTP 502 Bad
 * Gateway`, one line.
 */
export function httpTransport(
  url: string | URL,
  options: { headers?: Record<string, string> } = {},
): McpTransport {
  const requestInit = options.headers === undefined ? undefined : { headers: options.headers };
  const watch = new AnswerWatch();
  return watch.wrap(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: watch.fetch,
      ...(requestInit === undefined ? {} : { requestInit }),
    }),
  );
}
