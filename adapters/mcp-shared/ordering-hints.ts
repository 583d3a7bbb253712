/**
 * A tool's ordering hints in its tools/list entry's `_meta`: whether it runs alone, and the shared
 * state its calls touch. `createMcpServer` lists them and `connectMcp` takes them, so a client
 * keeps a server's ordering rules without being told them (see docs/mcp.md, "Ordering hints").
 *
 * @module
 */
import type { Tool } from '../../lib/contract.js';

/**
 * The `_meta` key of a tools/list entry that says the tool is sequential (`Tool.sequential`:
 * nothing else in a batch runs while it does): `true`, and only then present.
 */
export const SEQUENTIAL_META_KEY = 'io.github.agenttool/sequential';

/**
 * The `_meta` key of a tools/list entry that names the resource every call of the tool touches
 * (`Tool.resource`): a string, or `{ key, capacity }` for a resource up to `capacity` calls may
 * hold at once. Absent for a tool that names none, names it per call (a function of the
 * arguments), or is sequential.
 */
export const RESOURCE_META_KEY = 'io.github.agenttool/resource';

/** A resource as a listing names it: a key, and how many calls may hold it at once. */
export interface ListedResource {
  readonly key: string;
  readonly capacity: number;
}

/**
 * The `_meta` entries that list `tool`'s ordering: `{ [SEQUENTIAL_META_KEY]: true }` for a
 * sequential tool; `{ [RESOURCE_META_KEY]: resource }` for a tool whose `resource` is a non-empty
 * string, or an object with a non-empty string `key` and an integer `capacity` of at least 1
 * (listed as `{ key, capacity }`); undefined for anything else (a resource function, a capacity
 * JSON cannot write, a property whose getter throws), so no value a tool holds can break a listing.
 */
export function orderingMeta(tool: Tool): Record<string, unknown> | undefined {
  try {
    if (tool.sequential === true) return { [SEQUENTIAL_META_KEY]: true };
    const resource: unknown = tool.resource;
    if (typeof resource === 'string')
      return resource === '' ? undefined : { [RESOURCE_META_KEY]: resource };
    const counted = countedOf(resource);
    return counted === undefined ? undefined : { [RESOURCE_META_KEY]: counted };
  } catch {
    return undefined;
  }
}

/** `value` as `{ key, capacity }` when it is one (a non-empty string key, an integer >= 1). */
export function countedOf(value: unknown): ListedResource | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { key, capacity } = value as { key?: unknown; capacity?: unknown };
  return typeof key === 'string' &&
    key !== '' &&
    Number.isInteger(capacity) &&
    (capacity as number) >= 1
    ? { key, capacity: capacity as number }
    : undefined;
}
