/**
 * The pieces of a `prepare` step, run once per call on arguments that already passed the JSON
 * Schema. Each returns its input itself when it changes nothing and copies an object or array
 * only when something in it changes, so the parsed arguments are never modified. Keys are read
 * only when they are own properties and written as own properties, so a `__proto__` key in the
 * model's JSON stays a plain key and never reaches a prototype.
 *
 * @module
 */
import type { SafeParsing } from './node.js';

/** Rewrites one value on its way to zod; returns the value itself when nothing changes. */
export type Prepare = (value: unknown) => unknown;

/** What to do to one declared property of an object. */
export interface FieldTask {
  readonly key: string;
  readonly prepare: Prepare | undefined;
  /** A null here means "left out" (strict mode, optional field, zod does not accept null). */
  readonly nullToAbsent: boolean;
}

type Bag = Record<string, unknown>;

const isBag = (value: unknown): value is Bag =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** Plain assignment, except for `__proto__`, which assignment would turn into a prototype change. */
function setOwn(target: Bag, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else target[key] = value;
}

/** A date-time string (already checked by the JSON Schema's format) as the Date zod wants. */
export const toDate: Prepare = (value) => (typeof value === 'string' ? new Date(value) : value);

/** Marks a property to leave out of the copy. */
const absent: unique symbol = Symbol('absent');

/** Runs each task on its own property; `extra` runs on undeclared properties (a catchall). */
export function objectPreparer(
  tasks: readonly FieldTask[],
  extra: { declared: ReadonlySet<string>; prepare: Prepare } | undefined,
): Prepare {
  return (value) => {
    if (!isBag(value)) return value;
    let changes: Map<string, unknown> | undefined;
    for (const task of tasks) {
      if (!hasOwn(value, task.key)) continue;
      const current = value[task.key];
      if (current === null && task.nullToAbsent) (changes ??= new Map()).set(task.key, absent);
      else if (task.prepare !== undefined) {
        const next = task.prepare(current);
        if (next !== current) (changes ??= new Map()).set(task.key, next);
      }
    }
    if (extra !== undefined) {
      for (const key of Object.keys(value)) {
        if (extra.declared.has(key)) continue;
        const next = extra.prepare(value[key]);
        if (next !== value[key]) (changes ??= new Map()).set(key, next);
      }
    }
    return changes === undefined ? value : copyWith(value, changes);
  };
}

/**
 * A fresh object with `value`'s own properties in their order, changed as `changes` says. Built
 * anew rather than copied and deleted from: `delete` would leave zod a slow dictionary object.
 */
function copyWith(value: Bag, changes: ReadonlyMap<string, unknown>): Bag {
  const out: Bag = {};
  for (const key of Object.keys(value)) {
    const next = changes.has(key) ? changes.get(key) : value[key];
    if (next !== absent) setOwn(out, key, next);
  }
  return out;
}

/** Runs `element` on each item. */
export function arrayPreparer(element: Prepare): Prepare {
  return (value) => {
    if (!Array.isArray(value)) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = element(value[i]);
      if (next !== value[i]) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  };
}

/** Runs each position's step, and `rest` on the items past the declared ones. */
export function tuplePreparer(
  items: readonly (Prepare | undefined)[],
  rest: Prepare | undefined,
): Prepare {
  return (value) => {
    if (!Array.isArray(value)) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const prepare = i < items.length ? items[i] : rest;
      if (prepare === undefined) continue;
      const next = prepare(value[i]);
      if (next !== value[i]) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  };
}

/** Runs `prepare` on the value of each own key. */
export function recordPreparer(prepare: Prepare): Prepare {
  return (value) => {
    if (!isBag(value)) return value;
    let out: Bag | undefined;
    for (const key of Object.keys(value)) {
      const next = prepare(value[key]);
      if (next !== value[key]) setOwn((out ??= { ...value }), key, next);
    }
    return out ?? value;
  };
}

/** How a union chooses the option whose step runs. */
export type UnionChoice =
  /** A discriminated union: by the value of its discriminator property. */
  | { readonly key: string; readonly byValue: ReadonlyMap<unknown, Prepare> }
  /**
   * Any other union: as zod does, the first option (in order) that accepts the value its own step
   * makes. Costs a zod parse per call, only for unions that hold a date or a strict optional field.
   */
  | {
      readonly options: readonly SafeParsing[];
      readonly prepares: readonly (Prepare | undefined)[];
    };

/** Runs the step of the option the value belongs to; the value itself when none is found. */
export function unionPreparer(choice: UnionChoice): Prepare {
  if ('key' in choice) {
    const { key, byValue } = choice;
    return (value) => {
      if (!isBag(value) || !hasOwn(value, key)) return value;
      const prepare = byValue.get(value[key]);
      return prepare === undefined ? value : prepare(value);
    };
  }
  const { options, prepares } = choice;
  return (value) => {
    for (let i = 0; i < options.length; i++) {
      const prepare = prepares[i];
      const candidate = prepare === undefined ? value : prepare(value);
      if (accepts(options[i], candidate)) return candidate;
    }
    return value;
  };
}

function accepts(schema: SafeParsing, value: unknown): boolean {
  try {
    return schema.safeParse(value).success;
  } catch {
    // An async refinement cannot run here; the decoder will report it.
    return false;
  }
}
