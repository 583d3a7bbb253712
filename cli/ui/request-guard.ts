/**
 * What the web front's server checks before it acts on a request: a target it can read, its own
 * host, a request from its own page (same origin, and the server's token), and a body that is at
 * most a small JSON value. Every check answers with a status and a one-line reason, never throws.
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A refusal: the HTTP status and the one-line reason sent as `{ "error": ... }`. */
export interface Refusal {
  status: number;
  error: string;
}

/** The largest body a POST may carry: an answer to a question, or none at all. */
export const MAX_BODY_BYTES = 16 * 1024;

/** A fresh token: 128 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The path and query of a request target in origin form (`/path?query`). Anything else (`//a:b/`,
 * `*`, an absolute URL, a path with a backslash or a control character) is undefined.
 */
export function parseTarget(
  target: string | undefined,
): { path: string; query: URLSearchParams } | undefined {
  if (target === undefined || !target.startsWith('/') || target.startsWith('//')) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\\\x00-\x20\x7f]/.test(target)) return undefined;
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  return { path, query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)) };
}

/** Whether two tokens are the same, in time that does not depend on where they differ. */
function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks that a request that starts or stops something comes from the server's own page: no
 * foreign `Origin`, no `Sec-Fetch-Site` other than `same-origin` or `none` (typed in the address
 * bar), and the server's token as the `token` query parameter (which only the served page holds:
 * another site can neither read the page nor set a header on an EventSource).
 */
export function checkOwnPage(
  req: IncomingMessage,
  query: URLSearchParams,
  origins: ReadonlySet<string>,
  token: string,
): Refusal | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.has(origin))
    return { status: 403, error: 'requests from other sites are refused' };
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return { status: 403, error: 'requests from other sites are refused' };
  if (!sameToken(query.get('token'), token))
    return { status: 403, error: 'a token is required: open the page this server serves' };
  return undefined;
}

/** A POST body that passed {@link checkBody}: its JSON value, undefined when it was empty. */
export interface JsonBody {
  value: unknown;
}

/**
 * Reads a POST body of at most {@link MAX_BODY_BYTES}: resolves with a refusal when it is larger
 * (413) or, when not empty, not JSON (400); else with its JSON value. Never rejects: a client that
 * goes away resolves it too.
 */
export function checkBody(req: IncomingMessage): Promise<Refusal | JsonBody> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      return resolve({ status: 413, error: `a body of at most ${MAX_BODY_BYTES} bytes` });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: Refusal | JsonBody): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        settle({ status: 413, error: `a body of at most ${MAX_BODY_BYTES} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => settle({ status: 400, error: 'the request body was cut off' }));
    req.on('close', () => settle({ status: 400, error: 'the request body was cut off' }));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return settle({ value: undefined });
      try {
        settle({ value: JSON.parse(text) as unknown });
      } catch {
        settle({ status: 400, error: 'the request body is not valid JSON' });
      }
    });
  });
}
