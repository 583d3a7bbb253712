/**
 * What `McpHttpHandler` reads of a POST of MCP 2026-07-28 before the SDK's handler serves it:
 * whether its `Mcp-Param-*` headers say what its arguments say, which instance holds the call a
 * retry carries on, and the fetch `Request` it becomes.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Server } from '@modelcontextprotocol/server';
import { headerMismatch } from '../../mcp-shared/mcp-param-headers.js';
import { openState, type StateSigning } from '../held/request-state.js';
import { paramHeaderRules } from '../server-state.js';
import { FORWARDED, headerOf } from './http-messages.js';

/**
 * Why the call in `body`, which `server` serves, is refused for its `Mcp-Param-*` headers (a
 * balancer may have routed it on them; see docs/mcp.md), or undefined when they agree.
 */
export function paramHeaderMismatch(
  server: Server,
  req: IncomingMessage,
  body: unknown,
): string | undefined {
  const { name, arguments: args } = ((body as { params?: unknown }).params ?? {}) as {
    name?: unknown;
    arguments?: unknown;
  };
  const rules = typeof name === 'string' ? paramHeaderRules(server, name) : undefined;
  return rules === undefined ? undefined : headerMismatch(rules, args, (h) => headerOf(req, h));
}

/**
 * Where the call a retry carries on is held, when that is another instance (see
 * `McpHttpHandlerOptions.advertise`): read from a state whose signature this instance checks.
 * A request forwarded once is served here whatever it says, so that nothing goes round.
 */
export function homeElsewhere(
  signing: StateSigning | undefined,
  req: IncomingMessage,
  body: unknown,
): string | undefined {
  if (signing === undefined || req.headers[FORWARDED] !== undefined) return undefined;
  const { method, params } = (body ?? {}) as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const state = (params as { requestState?: unknown }).requestState;
  if (state === undefined) return undefined;
  const opened = openState(state, signing.key);
  if (typeof opened === 'string' || opened.home === undefined || opened.home === signing.home)
    return undefined;
  return opened.home;
}

/** The node request `req` with its body `text` as a fetch `Request`, aborted by `signal`. */
export function fetchRequestOf(req: IncomingMessage, text: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  return new Request(new URL(req.url ?? '/', 'http://localhost'), {
    method: 'POST',
    headers,
    body: text,
    signal,
  });
}
