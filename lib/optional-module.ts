/**
 * Modules loaded when first used rather than imported: in Node, resolved from this package as
 * `require` would (through `process.getBuiltinModule`, not an import of `node:module`, which a
 * browser bundle could not resolve). An optional peer is undefined when it is not installed; a
 * dependency loaded at its first use ({@link requiredModule}) is there whenever this is Node.
 *
 * @module
 */

type Require = (id: string) => unknown;

let nodeRequire: Require | null | undefined;

/** `require` as this package would call it, or null when this is not Node. */
function requireOf(): Require | null {
  if (nodeRequire === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
      .process;
    const nodeModule = proc?.getBuiltinModule?.('node:module') as
      { createRequire(from: string): Require } | undefined;
    nodeRequire = nodeModule === undefined ? null : nodeModule.createRequire(import.meta.url);
  }
  return nodeRequire;
}

/** The module `id`, or undefined when this is not Node or it is not installed. */
export function optionalModule(id: string): unknown {
  const load = requireOf();
  if (load === null) return undefined;
  try {
    return load(id);
  } catch {
    return undefined;
  }
}

/**
 * The module `id`, a dependency of this package, loaded at its first use (its CommonJS build,
 * through `require`, so the use stays synchronous). Throws where this is not Node: there the
 * module must be handed over by an import instead (as the browser entry's `register` functions
 * do).
 */
export function requiredModule<T>(id: string): T {
  const load = requireOf();
  if (load === null) throw new Error(`${id} is loaded through require, which only Node has here`);
  return load(id) as T;
}
