/**
 * The Streamable HTTP client transport, so an application need not import the SDK to connect. The stdio
 * transport is in `agenttool/mcp/stdio` (Node only).
 *
 * @module
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthProvider, OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import { AnswerWatch, DEFAULT_BUSY_RETRIES } from './answer-watch.js';
import { stepsUp } from './oauth.js';
import { httpPeer, transportPeers } from '../mcp-shared/mcp-peer.js';

/** The SDK's Transport interface: anything {@link connectMcp} can talk over. */
export type McpTransport = Transport;

/** Options of {@link httpTransport}. */
export interface HttpTransportOptions {
  /** Headers sent with every request (an `Authorization`, say). */
  headers?: Record<string, string> | undefined;
  /**
   * How many times a request the server refuses busy (HTTP 503 or 429 with `Retry-After`: it ran
   * nothing) is sent again, each after the wait the server asks for (at most 10 s; a longer one is
   * not waited for). Default 3; 0 sends nothing again. A call cancelled while it waits is not sent
   * again.
   */
  busyRetries?: number | undefined;
  /**
   * Authorization for a server that asks for it (HTTP 401): the SDK's `AuthProvider` (a bearer
   * token, and what to do on a 401), or `oauth(provider)` for MCP's OAuth flow (see
   * {@link oauth}), or an SDK `OAuthClientProvider` as the SDK takes it.
   */
  auth?: AuthProvider | OAuthClientProvider | undefined;
}

/**
 * A Streamable HTTP transport for the server at `url` (e.g. `http://127.0.0.1:3000/mcp`), with
 * `headers` on every request (an `Authorization`, say).
 *
 * A request refused busy is sent again after the server's `Retry-After` (see
 * {@link HttpTransportOptions.busyRetries}); when the retries run out, its call fails with the
 * server's one-line message and the status (`Server busy: 4 calls running; retry later (HTTP 503,
 * after 3 retries)`).
 *
 * A request whose response ends before its answer (the server died mid-call, or the load balancer
 * in front lost it) fails at once with `connection lost: ...`, instead of waiting for its timeout;
 * an error page in place of an answer (a balancer's 502) fails the request as `HTTP 502 Bad
 * Gateway`, one line.
 */
export function httpTransport(url: string | URL, options: HttpTransportOptions = {}): McpTransport {
  const requestInit = options.headers === undefined ? undefined : { headers: options.headers };
  const retries = options.busyRetries ?? DEFAULT_BUSY_RETRIES;
  if (!(Number.isInteger(retries) && retries >= 0))
    throw new RangeError(`busyRetries must be a whole number, at least 0, got ${String(retries)}`);
  const watch = new AnswerWatch(undefined, retries, stepsUp(options.auth));
  const at = new URL(url);
  const transport = watch.wrap(
    new StreamableHTTPClientTransport(at, {
      fetch: watch.fetch,
      ...(options.auth === undefined ? {} : { authProvider: options.auth }),
      ...(requestInit === undefined ? {} : { requestInit }),
    }),
  );
  transportPeers.set(transport, httpPeer(at));
  return transport;
}
