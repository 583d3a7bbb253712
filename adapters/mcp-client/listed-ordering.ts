/**
 * The ordering hints a server lists in a tool's `_meta` (see mcp-shared/ordering-hints.ts), read
 * as a peer's word: a value of the wrong kind is ignored, never trusted and never a crash.
 *
 * @module
 */
import {
  countedOf,
  RESOURCE_META_KEY,
  SEQUENTIAL_META_KEY,
  type ListedResource,
} from '../mcp-shared/ordering-hints.js';
import { remoteNameProblem } from './tool-name.js';

/** The ordering hints a listing's `_meta` states, and what in it was ignored, and why. */
export interface ListedOrdering {
  sequential: boolean;
  resource: ListedResource | undefined;
  /** One phrase per hint ignored: `_meta "<key>" <why>`. */
  ignored: string[];
}

/**
 * The ordering hints of a tools/list entry's `_meta`, each checked: sequential only when its
 * value is `true` (`false` and absence say nothing); a resource only when it is a string, or
 * `{ key, capacity }` with an integer capacity of at least 1, whose name is 1 to 128 characters
 * with no control or invisible character (the rule tool names follow: a resource name reaches
 * terminals and logs); "" names none. A value of any other kind is ignored and named in `ignored`.
 * Only the two keys are read, as own properties, so nothing else in `_meta` matters.
 */
export function listedOrdering(meta: unknown): ListedOrdering {
  const hints: ListedOrdering = { sequential: false, resource: undefined, ignored: [] };
  if (typeof meta !== 'object' || meta === null) return hints;
  const fields = meta as Record<string, unknown>;
  const ignore = (key: string, why: string) => hints.ignored.push(`_meta "${key}" ${why}`);
  if (Object.hasOwn(fields, SEQUENTIAL_META_KEY)) {
    const sequential = fields[SEQUENTIAL_META_KEY];
    if (typeof sequential === 'boolean') hints.sequential = sequential;
    else ignore(SEQUENTIAL_META_KEY, 'is not a boolean');
  }
  if (!Object.hasOwn(fields, RESOURCE_META_KEY)) return hints;
  const listed = fields[RESOURCE_META_KEY];
  if (listed === '') return hints;
  const resource = typeof listed === 'string' ? { key: listed, capacity: 1 } : countedOf(listed);
  const problem =
    resource === undefined
      ? 'is not a string or { key, capacity } (an integer >= 1)'
      : remoteNameProblem(resource.key);
  if (problem === undefined) hints.resource = resource;
  else ignore(RESOURCE_META_KEY, resource === undefined ? problem : `names one that ${problem}`);
  return hints;
}
