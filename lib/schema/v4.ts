/**
 * zod 4 schemas: the version-neutral node view of their internals (what the model writes: the
 * input side of pipes and transforms).
 *
 * @module
 */
import type { SchemaField, SchemaNode } from './node.js';

/** A zod 4 node's `def`, as far as this package reads it. */
export interface V4Def {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** The `_zod` internals of a zod 4 schema this package reads. */
export interface V4Internals {
  readonly def: V4Def;
  readonly optin?: string;
  readonly innerType?: unknown;
  readonly traits: ReadonlySet<string>;
  readonly propValues?: Readonly<Record<string, ReadonlySet<unknown>>>;
}

/** A zod 4 schema's `_zod` internals. */
export function internals(schema: unknown): V4Internals {
  return (schema as { _zod: V4Internals })._zod;
}

/** A zod 4 schema's `def`. */
export function defOf(schema: unknown): V4Def {
  return internals(schema).def;
}

/** Whether `value` is a zod 4 schema (zod 4 keeps its internals under `_zod`). */
export function isV4Schema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const zod = (value as { _zod?: unknown })._zod;
  return (
    typeof zod === 'object' && zod !== null && typeof (zod as { def?: unknown }).def === 'object'
  );
}

const isTransform = (schema: unknown): boolean => internals(schema).traits.has('$ZodTransform');

/** zod's own rule for a property the input may leave out (as its JSON Schema generator applies it). */
function inputOptional(schema: unknown): boolean {
  const def = defOf(schema);
  if (def.type === 'pipe' && isTransform(def.in)) return inputOptional(def.out);
  if (def.type === 'catch') return inputOptional(def.innerType);
  return internals(schema).optin !== undefined;
}

const refused: Readonly<Record<string, string>> = {
  bigint: 'a bigint',
  symbol: 'a symbol',
  undefined: 'undefined',
  void: 'void',
  nan: 'NaN',
  function: 'a function',
  map: 'a Map',
  set: 'a Set',
  promise: 'a promise',
  custom: 'a custom type',
  file: 'a file',
  never: 'never',
};

/** Reads one zod 4 node; the input side of pipes, as the model writes it. */
export function readV4(schema: unknown): SchemaNode {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Readonly<Record<string, unknown>>;
      const fields: SchemaField[] = Object.keys(shape).map((key) => {
        const field = shape[key];
        return { key, schema: field, optional: inputOptional(field) };
      });
      const catchall = def.catchall;
      const open = catchall !== undefined && defOf(catchall).type !== 'never';
      return { kind: 'object', fields, catchall: open ? catchall : undefined };
    }
    case 'array':
      return { kind: 'array', element: def.element };
    case 'tuple':
      return { kind: 'tuple', items: def.items as readonly unknown[], rest: def.rest ?? undefined };
    case 'record':
      return { kind: 'record', value: def.valueType };
    case 'union':
      return {
        kind: 'union',
        options: def.options as readonly unknown[],
        discriminator: discriminatorOf(def),
      };
    case 'intersection':
      return { kind: 'intersection', left: def.left, right: def.right };
    case 'optional':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return { kind: 'wrapper', inner: def.innerType, nullable: false };
    case 'nullable':
      return { kind: 'wrapper', inner: def.innerType, nullable: true };
    case 'pipe':
      return { kind: 'wrapper', inner: isTransform(def.in) ? def.out : def.in, nullable: false };
    case 'lazy':
      return { kind: 'wrapper', inner: internals(schema).innerType, nullable: false };
    case 'date':
      return { kind: 'date' };
    case 'null':
    case 'any':
    case 'unknown':
    case 'transform':
      return { kind: 'leaf', acceptsNull: true };
    case 'literal': {
      const values = def.values as readonly unknown[];
      if (values.some((v) => v === undefined || typeof v === 'bigint' || typeof v === 'symbol'))
        return { kind: 'refused', what: 'a literal undefined, bigint or symbol' };
      return { kind: 'leaf', acceptsNull: values.includes(null) };
    }
    case 'string':
    case 'number':
    case 'boolean':
    case 'enum':
    case 'template_literal':
    case 'success':
      return { kind: 'leaf', acceptsNull: false };
    default:
      return { kind: 'refused', what: refused[def.type] ?? `a zod "${def.type}" schema` };
  }
}

function discriminatorOf(def: V4Def): { key: string; options: Map<unknown, unknown> } | undefined {
  const key = def.discriminator;
  if (typeof key !== 'string') return undefined;
  const options = new Map<unknown, unknown>();
  for (const option of def.options as readonly unknown[]) {
    const values = internals(option).propValues?.[key];
    if (values === undefined) return undefined;
    for (const value of values) if (!options.has(value)) options.set(value, option);
  }
  return { key, options };
}
