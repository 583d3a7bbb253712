/**
 * The token that ties a server's question to the call it belongs to, between agenttool peers:
 * MCP does not say which request an `elicitation/create` belongs to.
 *
 * @module
 */

/**
 * The `_meta` key under which `createMcpServer` sends, with each question a call's tool asks, the
 * token of that call: the `progressToken` of its request (which `connectMcp` gives every call, one
 * of its own), or a token the request sent under this same key.
 */
export const CALL_TOKEN = 'io.github.agenttool/call';

/**
 * The call token of a tools/call request's `_meta`: its {@link CALL_TOKEN} entry, else its
 * progress token when that is a string; undefined when it has neither.
 */
export function callTokenOf(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const fields = meta as Record<string, unknown>;
  const token = fields[CALL_TOKEN];
  if (typeof token === 'string') return token;
  const progress = fields.progressToken;
  return typeof progress === 'string' ? progress : undefined;
}
