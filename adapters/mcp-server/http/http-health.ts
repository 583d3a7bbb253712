/**
 * What a load balancer asks `McpHttpHandler`: whether the process serves, and whether it should
 * get more work; and the answer to work it should not have sent while the instance drains.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import { sendError } from './http-messages.js';

/** Where an instance stands, as `/readyz` tells it. */
export interface Readiness {
  /** More work is welcome: not draining, a call slot free, room for a session. */
  readonly ready: boolean;
  /** It drains (see `McpHttpHandler.drain`). */
  readonly draining: boolean;
}

/**
 * Answers `/healthz` (the process answers: 200 `ok`) and `/readyz` (200 `ready`, or 503
 * `draining` or `busy`), for GET and HEAD, before any access rule: a balancer's probe carries no
 * token. They say nothing about the tools, sessions or clients. True when the request was one of
 * them; `readiness` is read only for `/readyz`.
 */
export function answerHealth(
  req: IncomingMessage,
  res: ServerResponse,
  readiness: () => Readiness,
): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/readyz') return false;
  const now = path === '/healthz' ? { ready: true, draining: false } : readiness();
  const word =
    path === '/healthz' ? 'ok' : now.ready ? 'ready' : now.draining ? 'draining' : 'busy';
  res.writeHead(now.ready ? 200 : 503, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : `${word}\n`);
  return true;
}

/** The answer to new work while the instance drains: 503, retry elsewhere, connection closed. */
export function refuseDraining(res: ServerResponse, id: RequestId | null = null): void {
  sendError(
    res,
    503,
    -32000,
    'Service unavailable: the server is shutting down; retry on another instance',
    { 'retry-after': '1', connection: 'close' },
    id,
  );
}
