/**
 * What differs between the eras of MCP a served call may come in: 2025-11-25 (initialize, a
 * session, capabilities given once) and 2026-07-28 (no session, capabilities with every request),
 * read in one place.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
  type Server,
} from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from './tasks/task-host.js';

/** Whether `server` serves a request of MCP 2026-07-28 or later (no initialize, no session). */
export function isModern(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= '2026-07-28';
}

/**
 * The capabilities the client declared for the request `ctx` serves: in MCP 2026-07-28 those its
 * request carries (`_meta`), read from the request itself, since one Server may serve many
 * requests (stdio), each with its own; otherwise those it gave on initialize.
 */
export function clientCapabilitiesOf(
  server: Server,
  ctx: { mcpReq: unknown },
): ClientCapabilities | undefined {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const own = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return typeof own === 'object' && own !== null
    ? (own as ClientCapabilities)
    : server.getClientCapabilities();
}

/** What of `required` the client's `declared` capabilities lack, or undefined when nothing. */
export function missingCapabilities(
  required: ClientCapabilities,
  declared: ClientCapabilities | undefined,
): ClientCapabilities | undefined {
  const missing: Record<string, unknown> = {};
  for (const [key, wanted] of Object.entries(required)) {
    const has = (declared as Record<string, unknown> | undefined)?.[key];
    if (typeof has !== 'object' || has === null) {
      missing[key] = wanted;
      continue;
    }
    const lacking = Object.entries((wanted ?? {}) as Record<string, unknown>).filter(
      ([member]) => (has as Record<string, unknown>)[member] === undefined,
    );
    if (lacking.length > 0) missing[key] = Object.fromEntries(lacking);
  }
  return Object.keys(missing).length === 0 ? undefined : (missing as ClientCapabilities);
}

/** The -32021 refusal of a client that did not declare the tasks extension. */
export function tasksRequired(what: string): MissingRequiredClientCapabilityError {
  const requiredCapabilities = { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities;
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities },
    `${what}: declare the extension "${TASKS_EXTENSION}" in the request's client capabilities`,
  );
}

/**
 * A JSON-RPC error with `code` whose message is `message` as it is: the SDK's McpError would put
 * `MCP error <code>: ` in the message sent, and the client's McpError adds it again.
 */
export function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
