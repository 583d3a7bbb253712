/**
 * The HTTP answers `AnswerWatch` rewrites before the SDK reads them: a busy refusal (429, 503)
 * waited out and tried again, then read as its JSON-RPC error; a step-up (403 for a scope) as a
 * 401; an error page in place of an answer, shortened.
 *
 * @module
 */
import { oneLine } from '../../lib/errors.js';

/** How many times a request refused busy is sent again by default (see `httpTransport`). */
export const DEFAULT_BUSY_RETRIES = 3;
/** The longest wait for one retry (ms): a server asking for longer is not waited for. */
const MAX_BUSY_WAIT = 10_000;
/** The statuses that say the server ran nothing and asks to be tried later. */
export const BUSY = new Set([429, 503]);

/** Whether a 403 says the token lacks a scope (`WWW-Authenticate: Bearer error="insufficient_scope"`). */
export function insufficientScope(res: Response): boolean {
  return /error\s*=\s*"?insufficient_scope"?/i.test(res.headers.get('www-authenticate') ?? '');
}

/** The wait (ms) a busy answer asks for before a retry, or undefined when it is not one. */
export function busyWait(res: Response): number | undefined {
  if (!BUSY.has(res.status)) return undefined;
  const header = res.headers.get('retry-after')?.trim();
  if (header === undefined || header === '') return undefined;
  const ms = /^\d+$/.test(header) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms)) return undefined;
  const wait = Math.max(0, ms);
  return wait <= MAX_BUSY_WAIT ? wait : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A busy refusal whose body is a JSON-RPC error, as an answer the SDK reads as that error: its
 * message one line, with the status and the retries made (`Server busy: 4 calls running; retry
 * later (HTTP 503, after 3 retries)`), instead of the SDK's `Error POSTing to endpoint` with the
 * raw body.
 */
export async function busyAnswer(res: Response, retries: number): Promise<Response> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const status = `HTTP ${res.status}${retries > 0 ? `, after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : ''}`;
  const answers = (Array.isArray(body) ? body : [body]).map((m: unknown) => {
    const { id, error } = (m ?? {}) as {
      id?: unknown;
      error?: { code?: unknown; message?: unknown };
    };
    if (typeof error !== 'object' || error === null) return undefined;
    const code = typeof error.code === 'number' ? error.code : -32000;
    const message = typeof error.message === 'string' ? oneLine(error.message) : 'server busy';
    // The status travels in `data`, for McpCallError's `status` (see McpErrorCode).
    return {
      jsonrpc: '2.0',
      id: id ?? null,
      error: { code, message: `${message} (${status})`, data: { httpStatus: res.status } },
    };
  });
  if (body === undefined || answers.some((a) => a === undefined))
    return new Response(text, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  return new Response(JSON.stringify(Array.isArray(body) ? answers : answers[0]), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * A step-up (a 403 for a scope the token lacks) as a 401: the transport's auth (see `oauth`)
 * authorizes again on a 401, with the scope this challenge asks for, and the request goes again.
 */
export async function stepUpAnswer(res: Response): Promise<Response> {
  const text = await res.text().catch(() => '');
  return new Response(text, { status: 401, statusText: 'Unauthorized', headers: res.headers });
}

/** An error page in place of a JSON-RPC answer, shortened to `HTTP <status> <text>`. */
export async function errorPage(res: Response): Promise<Response> {
  await res.body?.cancel().catch(() => undefined);
  // The headers stay (a 401's WWW-Authenticate is what authorization starts from).
  const headers = new Headers(res.headers);
  headers.set('content-type', 'text/plain');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(`HTTP ${res.status} ${res.statusText}`.trim(), {
    status: res.status,
    statusText: res.statusText,
    headers,
  });
}
