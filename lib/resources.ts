/**
 * What a tool's call holds a turn of: the resource it names (a string, a counted resource, or a
 * function of the call's arguments) and the checks the engine reads it through; part of the tool
 * contract (contract.ts), exported from there.
 *
 * @module
 */
import type { Tool } from './contract.js';
import { describeValue } from './validation/format.js';
import { DEFAULT_LIMITS } from './validation/argument-validator.js';
import { parseArgumentsText } from './validation/json.js';

/** A call's arguments as parsed from its JSON text: always an object ("" is `{}`). */
export interface JsonArguments {
  readonly [key: string]: unknown;
}

/**
 * A resource named per call: given the call's arguments parsed from its JSON text, it returns the
 * resource the call touches, or "" for none (the call runs alongside everything). It runs once
 * when the engine admits the call, before the call takes a turn, and again wherever `resourceOf`
 * or `chains` is asked, so it should be a pure function of the arguments. A tool made by `tool()`
 * passes the arguments through its schema first, so its author's function sees them validated,
 * decoded and typed; a throw (the schema's ValidationError, or the function's own) fails that call
 * with the error, and the call never takes a turn of any resource.
 */
export type ResourceFunction = (args: JsonArguments) => ResourceName;

/**
 * A resource that up to `capacity` calls may hold at once: a pool of four sandboxes is
 * `{ key: "sandbox", capacity: 4 }`, an API that takes two requests at a time
 * `{ key: "api", capacity: 2 }`. Its calls start in job order (a later call never overtakes an
 * earlier one waiting for it), and at most `capacity` of them run at once. `capacity` is an integer
 * of at least 1, or Infinity (no bound of its own); 1 is a plain resource, the same as naming
 * `key` alone. A key of "" names no resource. The application's `ExecuteOptions.capacities` wins
 * over what a tool states.
 */
export interface CountedResource {
  /** The resource, as a plain string names it: calls naming the same key share it. */
  readonly key: string;
  /** How many of its calls may run at once: an integer >= 1, or Infinity. */
  readonly capacity: number;
}

/** What a tool's `resource` names: a resource (capacity 1), or a {@link CountedResource}. */
export type ResourceName = string | CountedResource;

/**
 * `capacity` when a counted resource may have it (an integer >= 1, or Infinity).
 *
 * @throws RangeError naming `where` otherwise.
 */
export function checkedCapacity(capacity: unknown, where: string): number {
  if (capacity === Infinity || (Number.isInteger(capacity) && (capacity as number) >= 1))
    return capacity as number;
  throw new RangeError(
    `${where}: capacity must be an integer >= 1 or Infinity, got ${describeValue(capacity)}`,
  );
}

/**
 * The shared state a call of `tool` with arguments `args` touches (a counted resource's `key`), or
 * "" when it names none. A sequential tool takes the whole batch and reports "" here whatever it
 * says, so a scheduler need not check both.
 *
 * A `resource` that is a function ({@link ResourceFunction}) is called with `args` parsed (no
 * arguments, "", is `{}`), and what it returns is the resource. The parse has no length limit of
 * its own (the tool applies its limits when it runs) and refuses nesting deeper than 256 levels.
 *
 * @param tool The tool.
 * @param args The call's raw argument text; omitted, "" (no arguments). Only a resource function
 *   reads it.
 * @return The resource, "" for none.
 * @throws ValidationError when `args` is not a JSON object (`invalid arguments: not valid JSON:
 *   ...`); whatever the resource function throws (a `tool()` tool's ValidationError for arguments
 *   its schema refuses); a TypeError when it names something other than a string or a
 *   {@link CountedResource}, a RangeError for a capacity that is not an integer >= 1 or Infinity.
 */
export function resourceOf(tool: Tool, args = ''): string {
  if (tool.sequential === true) return '';
  const resource = tool.resource;
  if (typeof resource === 'string') return resource;
  if (resource === undefined) return '';
  const named = namedResource(tool, args);
  return typeof named === 'string' ? named : named.key;
}

/**
 * How many calls of its resource a call of `tool` with arguments `args` says may run at once:
 * the `capacity` of a {@link CountedResource}, 1 for a plain resource or none. What the engine
 * runs under is the application's `ExecuteOptions.capacities` for the key when it sets one.
 *
 * @param tool The tool.
 * @param args The call's raw argument text, for a resource function; omitted, "".
 * @return An integer >= 1, or Infinity.
 * @throws What {@link resourceOf} throws.
 */
export function capacityOf(tool: Tool, args = ''): number {
  if (tool.sequential === true || typeof tool.resource === 'string') return 1;
  if (tool.resource === undefined) return 1;
  const named = namedResource(tool, args);
  return typeof named === 'string' ? 1 : named.capacity;
}

/**
 * What a call of `tool` names (a function's answer for `args`), checked: a string, or a counted
 * resource with a string key and a valid capacity. For the engine, which needs both at once.
 */
export function namedResource(tool: Tool, args: string): ResourceName {
  const resource = tool.resource;
  if (resource === undefined || resource === null) return ''; // null, from JavaScript: none
  if (typeof resource === 'string') return resource;
  const named: unknown =
    typeof resource === 'function'
      ? resource(parseArgumentsText(args, Infinity, DEFAULT_LIMITS.maxDepth))
      : resource;
  if (typeof named === 'string') return named;
  const key = (named as { key?: unknown } | null)?.key;
  if (typeof named !== 'object' || typeof key !== 'string')
    throw new TypeError(
      `tool "${tool.name}": resource ${typeof resource === 'function' ? 'returned' : 'is'} ${describeValue(named)}, not a string or { key, capacity }`,
    );
  checkedCapacity(
    (named as { capacity?: unknown }).capacity,
    `tool "${tool.name}": resource "${key}"`,
  );
  return named as CountedResource;
}
