/**
 * `wrap()` and `unwrap()`: a tool that stands in for another and keeps every property it has.
 *
 * @module
 */
import type { Tool } from './contract.js';

/**
 * What a wrapper changes: any member of a {@link Tool}, most often `execute`. A member set to
 * `undefined` drops that optional property, so the wrapper reads as its default; `name`,
 * `description` and `execute` cannot be dropped, and `undefined` leaves them forwarded.
 */
export type WrapOverrides = { -readonly [K in keyof Tool]?: Tool[K] };

const inners = new WeakMap<Tool, Tool>();
const REQUIRED = new Set(['name', 'description', 'execute']);

/**
 * A tool that is `tool` in every way but what `overrides` says: its name, description, parameters
 * and every optional property it has (`strict`, `sequential`, `resource`, `annotations`,
 * `confined`, `close`, `replay`, and any added to {@link Tool} later) are forwarded unchanged, so
 * middleware (logging, metrics, caching, retries) never silently drops a property. A wrapped shell
 * that was sequential stays sequential; a wrapped tool that owns nothing has no `close`.
 *
 * ```ts
 * const logged = wrap(bash, {
 *   execute: (call, context) =>
 *     bash.execute(call, context).pipe(tap({ complete: () => log(call.id) })),
 * });
 * isSequential(logged) === isSequential(bash); // and so for every reader
 * ```
 *
 * Forwarding is by construction, not by a list: every member `tool` has, its own and its
 * prototype's (a class's methods), is forwarded. Methods are bound to `tool`, so a class that keeps
 * private state answers as it would unwrapped; other properties are read from `tool` each time,
 * so the wrapper sees what `tool` says now. A property `tool` does not have, the wrapper does not
 * have either, and its reader gives the default. `overrides` are the wrapper's own. A member set
 * to `undefined` drops that optional property; `name`, `description` and `execute` cannot be
 * dropped.
 *
 * `replay` is forwarded too, and it is `execute`'s to keep: a wrapper whose `execute` adds an
 * effect of its own that is not safe to repeat says so with `replay: 'unsafe'`.
 *
 * @see {@link unwrap} for the tool inside.
 * @param tool The tool to stand in for.
 * @param overrides What the wrapper changes; nothing by default.
 * @return A new tool; `unwrap` gives back `tool`.
 * @throws TypeError when `tool` is not a tool (no `execute` function).
 */
export function wrap(tool: Tool, overrides: WrapOverrides = {}): Tool {
  if (typeof tool !== 'object' || tool === null || typeof tool.execute !== 'function')
    throw new TypeError('wrap: expected a tool with an execute function');
  const wrapper = {} as Tool;
  for (const key of memberNames(tool)) {
    if (Object.hasOwn(overrides, key)) {
      const value = (overrides as Record<string, unknown>)[key];
      if (value !== undefined || !REQUIRED.has(key)) continue;
    }
    forward(wrapper, tool, key);
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined)
      Object.defineProperty(wrapper, key, { value, enumerable: true, writable: true });
  }
  inners.set(wrapper, tool);
  return wrapper;
}

/**
 * The tool `tool` was made from by {@link wrap}, one level in, or undefined when `tool` is not a
 * wrapper. An application that wants the tool at the bottom of a chain of wrappers calls it until it
 * returns undefined:
 *
 * ```ts
 * let inner = tool;
 * for (let next = unwrap(inner); next !== undefined; next = unwrap(next)) inner = next;
 * ```
 *
 * @param tool Any tool.
 * @return The wrapped tool, or undefined.
 */
export function unwrap(tool: Tool): Tool | undefined {
  return inners.get(tool);
}

/** Every string-keyed member of `value` and its prototypes, up to (not including) Object's. */
function memberNames(value: object): Set<string> {
  const names = new Set<string>();
  for (
    let layer: object | null = value;
    layer !== null && layer !== Object.prototype;
    layer = Object.getPrototypeOf(layer) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(layer))
      if (name !== 'constructor') names.add(name);
  }
  return names;
}

/** Defines `key` on `wrapper` as `tool`'s: a method bound to `tool`, anything else read live. */
function forward(wrapper: Tool, tool: Tool, key: string): void {
  const source = tool as unknown as Record<string, unknown>;
  const value = source[key];
  if (typeof value === 'function') {
    Object.defineProperty(wrapper, key, {
      value: (value as (...args: unknown[]) => unknown).bind(tool),
      enumerable: true,
      writable: true,
    });
  } else {
    Object.defineProperty(wrapper, key, { get: () => source[key], enumerable: true });
  }
}
