/**
 * Detached tools across MCP: `createMcpServer` lists a tool whose calls detach (`Tool.detach`)
 * with {@link DETACH_META_KEY} in its tools/list entry's `_meta`, and `connectMcp` gives the
 * remote tool `detach: true`, so a batch on the client answers the model before the call ends.
 *
 * @module
 */

/**
 * The `_meta` key of a tools/list entry whose calls detach: `true`. Namespaced as MCP asks of
 * `_meta` keys, so other clients ignore it.
 */
export const DETACH_META_KEY = 'io.agenttool/detach';

/** Whether a tools/list entry says its calls detach: `_meta` with {@link DETACH_META_KEY} true. */
export function listedAsDetached(listing: { readonly _meta?: unknown }): boolean {
  const meta = listing._meta;
  return (
    typeof meta === 'object' &&
    meta !== null &&
    (meta as Record<string, unknown>)[DETACH_META_KEY] === true
  );
}
