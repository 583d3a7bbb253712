/**
 * The HTTP side of `McpHttpHandler`: reading a POST's body under its cap, what a body holds
 * (calls, a request state, an initialize), JSON-RPC errors, and writing a fetch Response (or a
 * forwarded one) to node's response.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import { messagesOf } from './session-requests.js';

export function sendError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Readonly<Record<string, string>>,
  id: RequestId | null = null,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

/** A request header's value; the first of a repeated one. */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Writes a fetch Response to node's response: status, headers, then the body as it comes (an SSE
 * stream chunk by chunk). When the client goes away first, the body is cancelled, which the SDK's
 * handler takes as the call's cancellation.
 */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The stream broke (its call was cancelled, or the server is closing): end what was sent.
  } finally {
    res.off('close', stop);
    res.end();
  }
}

/** The header of a request one instance forwards to another (see `McpHttpHandler.elsewhere`). */
export const FORWARDED = 'x-agenttool-forwarded';

/** Headers a forwarded request does not carry on: they are the hop's, not the request's. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'keep-alive',
  'transfer-encoding',
]);

/**
 * Forwards a retry to the instance that holds its call, and pipes the answer back; a client that
 * goes away cancels the forwarded request too. An instance that cannot be reached is a 502 with a
 * JSON-RPC error naming it.
 */
export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  text: string,
  home: string,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP_HEADERS.has(name))
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  headers.set(FORWARDED, '1');
  const gone = new AbortController();
  const leave = (): void => {
    if (!res.writableFinished) gone.abort();
  };
  res.once('close', leave);
  let response: Response;
  try {
    response = await fetch(home, { method: 'POST', headers, body: text, signal: gone.signal });
  } catch (err) {
    res.off('close', leave);
    const cause =
      err instanceof Error
        ? ((err.cause as Error | undefined)?.message ?? err.message)
        : String(err);
    sendError(
      res,
      502,
      -32603,
      `the instance that holds this call (${home}) cannot be reached: ${cause}`,
    );
    return;
  }
  await sendResponse(res, response);
}

/** How many tools/call requests a POST body carries. */
export function callCountOf(body: unknown): number {
  let count = 0;
  for (const m of messagesOf(body))
    if (typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call')
      count++;
  return count;
}

/** Whether a POST body is one request carrying a `requestState` (a retry of MCP 2026-07-28). */
export function hasRequestState(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const params = (body as { params?: unknown }).params;
  return (
    typeof params === 'object' &&
    params !== null &&
    (params as { requestState?: unknown }).requestState !== undefined
  );
}

/** Whether a POST body holds anything besides initialize and notifications/initialized. */
export function usesSession(body: unknown): boolean {
  return messagesOf(body).some((m) => {
    const method = typeof m === 'object' && m !== null ? (m as { method?: unknown }).method : m;
    return method !== 'initialize' && method !== 'notifications/initialized';
  });
}

export function isInitialize(body: unknown): boolean {
  return messagesOf(body).some(
    (m) =>
      typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}

/**
 * The body as text, or undefined as soon as it is known to exceed `limit` bytes: from its
 * Content-Length when declared, else once that much has arrived. Nothing more is buffered then.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        req.off('data', onData);
        req.off('end', onEnd);
        resolve(undefined);
      }
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** Resolves once `res` has ended (finished or closed), or after `ceiling` ms. */
export function ended(res: ServerResponse, ceiling: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (res.writableEnded) {
      resolve();
      return;
    }
    const timer = setTimeout(resolve, ceiling);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    res.once('close', done);
    res.once('finish', done);
  });
}
