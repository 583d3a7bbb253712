/**
 * An optional peer, loaded when it is there: in Node, resolved from this package as `require`
 * would (through `process.getBuiltinModule`, not an import of `node:module`, which a browser
 * bundle could not resolve); elsewhere, or when it is not installed, undefined.
 *
 * @module
 */

/** The module `id`, or undefined when this is not Node or it is not installed. */
export function optionalModule(id: string): unknown {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const nodeModule = proc?.getBuiltinModule?.('node:module') as
    { createRequire(from: string): (id: string) => unknown } | undefined;
  if (nodeModule === undefined) return undefined;
  try {
    return nodeModule.createRequire(import.meta.url)(id);
  } catch {
    return undefined;
  }
}
