/**
 * Cross-origin access to a served tool set: the CORS answers that let a page of a listed origin
 * call the server from a browser, bearer token included.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request headers a page may send: the MCP client's own, and the token. */
export const CORS_ALLOWED_HEADERS: readonly string[] = Object.freeze([
  'Authorization',
  'Content-Type',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  // MCP 2026-07-28's request headers.
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
]);

/** The response headers a page may read: the session id, and why a token was refused. */
export const CORS_EXPOSED_HEADERS: readonly string[] = Object.freeze([
  'Mcp-Session-Id',
  'WWW-Authenticate',
]);

/**
 * An allow-list entry as the origin a browser sends (`https://app.example`, `http://127.0.0.1:4200`:
 * scheme and host in lower case, the scheme's default port dropped), or undefined when it is not an
 * http(s) origin: a wildcard, a path, a query or credentials.
 */
export function parseOrigin(entry: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return undefined;
  if (url.pathname !== '/') return undefined;
  if (url.hostname.includes('*')) return undefined;
  return url.origin;
}

/** True for a CORS preflight: an OPTIONS request that carries Origin and the method it asks for. */
export function isPreflight(req: IncomingMessage): boolean {
  return (
    req.method === 'OPTIONS' &&
    req.headers.origin !== undefined &&
    req.headers['access-control-request-method'] !== undefined
  );
}

/**
 * The CORS answers of a server for its listed origins. A request whose Origin is listed gets
 * `Access-Control-Allow-Origin` with that very origin (never `*`, and never
 * `Access-Control-Allow-Credentials`: the token travels in the Authorization header, not in a
 * cookie) and `Access-Control-Expose-Headers: Mcp-Session-Id, WWW-Authenticate`; a preflight
 * from it is answered 204 with the methods and {@link CORS_ALLOWED_HEADERS}. Any other origin
 * gets no CORS header at all, so a browser keeps its page from reading the answer, and its
 * preflight is refused with 403.
 */
export class HttpCors {
  private readonly origins: ReadonlySet<string>;

  /** @throws RangeError for an entry that is not an http(s) origin (`*` included). */
  constructor(allowedOrigins: readonly string[] = []) {
    const origins = new Set<string>();
    for (const entry of allowedOrigins) {
      const origin = parseOrigin(entry);
      if (origin === undefined) throw new RangeError(`allowedOrigins: not an origin: ${entry}`);
      origins.add(origin);
    }
    this.origins = origins;
  }

  /** True when `origin` (an Origin header value) is listed. */
  lists(origin: string | undefined): boolean {
    return origin !== undefined && this.origins.has(origin.trim().toLowerCase());
  }

  /**
   * Sets the CORS headers on `res` when the request comes from a listed origin, so that every
   * answer to it (refusals included) is readable by the page. Call before anything is written.
   */
  decorate(req: IncomingMessage, res: ServerResponse): void {
    if (this.origins.size === 0) return;
    res.setHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    if (!this.lists(origin)) return;
    res.setHeader('Access-Control-Allow-Origin', origin!.trim());
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '));
  }

  /** Answers a preflight: 204 with what may be sent for a listed origin, else 403. */
  preflight(req: IncomingMessage, res: ServerResponse): void {
    if (!this.lists(req.headers.origin)) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('Forbidden: origin not allowed for cross-origin requests');
      return;
    }
    // A tool's arguments mirrored into headers (x-mcp-header) are named by the tool: any
    // `Mcp-Param-*` the page asks for is allowed beside the fixed list.
    const asked = req.headers['access-control-request-headers'];
    const params = (typeof asked === 'string' ? asked.split(',') : [])
      .map((name) => name.trim())
      .filter((name) => /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/i.test(name));
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'GET, POST, DELETE',
      'Access-Control-Allow-Headers': [...CORS_ALLOWED_HEADERS, ...params].join(', '),
      'Access-Control-Max-Age': '600',
    });
    res.end();
  }
}
