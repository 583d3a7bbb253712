/**
 * What a client transport says of its peer, for the spans of its calls (docs/telemetry.md):
 * `httpTransport` and `stdioTransport` note it here, `connectMcp` reads it.
 *
 * @module
 */
import type { McpPeer } from '../../lib/telemetry/mcp-spans.js';

/** What each transport says of its peer. */
export const transportPeers = new WeakMap<object, McpPeer>();

/** The `server.address`/`server.port`/`network.*` of an HTTP server at `url`. */
export function httpPeer(url: URL): McpPeer {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { transport: 'tcp', address: url.hostname.replace(/^\[|\]$/g, ''), port };
}
