/**
 * Who may reach a served tool set over HTTP: the Host and Origin checks that stop DNS rebinding,
 * and the bearer token.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { parseOrigin } from './http-cors.js';

/** The rules a request must pass before anything else is read. */
export interface HttpAccessOptions {
  /** The bearer token every request must carry; undefined admits any caller. */
  token?: string | undefined;
  /** Host header values accepted besides the loopback names: `name` (any port) or `name:port`. */
  allowedHosts?: readonly string[] | undefined;
  /**
   * Origins accepted besides loopback ones and the request's own, each an http(s) origin such as
   * `https://app.example` (no wildcard, no path).
   */
  allowedOrigins?: readonly string[] | undefined;
}

/** Why a request is refused: its HTTP status, a one-line message and any extra header. */
export interface Refusal {
  readonly status: 401 | 403;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The names that reach this machine only; any port. */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * A Host header value (or an allow-list entry) split into a lower-case hostname, IPv6 in brackets
 * and any trailing dot dropped, and its port ("" when absent). Undefined when it is not one.
 */
export function parseHost(value: string): { hostname: string; port: string } | undefined {
  const text = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (match === null) return undefined;
  let hostname = match[1]!;
  if (hostname.endsWith('.') && hostname.length > 1) hostname = hostname.slice(0, -1);
  return { hostname, port: match[2] ?? '' };
}

/**
 * Throws a RangeError unless `token` can be sent as `Authorization: Bearer <token>` and match:
 * a non-empty string of visible ASCII characters (no space, tab, newline or control character,
 * which a header cannot carry or the Bearer syntax splits on).
 */
export function checkToken(token: unknown): void {
  if (typeof token !== 'string' || token === '')
    throw new RangeError('token must be a non-empty string');
  if (/\s/.test(token))
    throw new RangeError('token must not contain whitespace: no client could ever send it');
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new RangeError('token must be visible ASCII characters: no client could ever send it');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Checks one request's headers against the rules, in this order: Host, Origin, token. Built once
 * per server; each check is a set lookup or one hash.
 */
export class HttpAccess {
  private readonly hosts = new Set<string>();
  private readonly origins: ReadonlySet<string>;
  private readonly token: Buffer | undefined;

  /** @throws RangeError for an empty token, one with whitespace, a malformed allowed host or allowed origin. */
  constructor(options: HttpAccessOptions) {
    for (const entry of [...LOOPBACK_HOSTS, ...(options.allowedHosts ?? [])]) {
      const host = parseHost(entry);
      if (host === undefined) throw new RangeError(`allowedHosts: not a host: ${entry}`);
      this.hosts.add(host.port === '' ? host.hostname : `${host.hostname}:${host.port}`);
    }
    this.origins = new Set(
      (options.allowedOrigins ?? []).map((entry) => {
        const origin = parseOrigin(entry);
        if (origin === undefined) throw new RangeError(`allowedOrigins: not an origin: ${entry}`);
        return origin;
      }),
    );
    const token = options.token;
    if (token !== undefined) checkToken(token);
    // Hashed, so that the comparison takes the same time whatever the length of the guess.
    this.token = token === undefined ? undefined : digest(token);
  }

  /**
   * Undefined when the request may go on, else why it may not. With `token: false` the token is
   * not asked for: a CORS preflight, which a browser sends without it, runs nothing.
   */
  check(
    headers: IncomingHttpHeaders,
    { token = true }: { token?: boolean } = {},
  ): Refusal | undefined {
    const host = headers.host === undefined ? undefined : parseHost(headers.host);
    if (host === undefined || !this.hostAllowed(host.hostname, host.port))
      return { status: 403, message: 'Forbidden: host not allowed' };
    const origin = headers.origin;
    if (origin !== undefined && !this.originAllowed(origin, headers.host!))
      return { status: 403, message: 'Forbidden: origin not allowed' };
    if (token && this.token !== undefined) {
      const header = headers.authorization;
      const given = header === undefined ? undefined : BEARER.exec(header)?.[1];
      if (given === undefined)
        return {
          status: 401,
          message: 'Unauthorized: a bearer token is required',
          headers: { 'www-authenticate': 'Bearer' },
        };
      if (!timingSafeEqual(digest(given), this.token))
        return {
          status: 401,
          message: 'Unauthorized: invalid token',
          headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
        };
    }
    return undefined;
  }

  private hostAllowed(hostname: string, port: string): boolean {
    const hosts = this.hosts;
    return hosts.has(hostname) || hosts.has(`${hostname}:${port === '' ? '80' : port}`);
  }

  /** Listed, loopback, or the request's own origin (a page served by this very host). */
  private originAllowed(origin: string, host: string): boolean {
    const lower = origin.toLowerCase();
    if (this.origins.has(lower)) return true;
    let url: URL;
    try {
      url = new URL(lower);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return LOOPBACK_HOSTS.includes(url.hostname) || url.host === host.trim().toLowerCase();
  }
}
