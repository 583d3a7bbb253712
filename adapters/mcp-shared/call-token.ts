/**
 * The token that ties a server's question to the call it belongs to, between agenttool peers:
 * MCP does not say which request an `elicitation/create` belongs to.
 *
 * @module
 */

/**
 * The `_meta` key: `connectMcp` sends a token of its own under it with each tools/call, and
 * `createMcpServer` sends it back with each question that call's tool asks.
 */
export const CALL_TOKEN = 'io.github.agenttool/call';

/** The call token in a request's `_meta`, or undefined when there is none. */
export function callTokenOf(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as Record<string, unknown>)[CALL_TOKEN];
  return typeof token === 'string' ? token : undefined;
}
