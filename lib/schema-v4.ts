/**
 * zod 4 schemas: the version-neutral node view, and JSON Schema through `z.toJSONSchema` with the
 * fixes that make it say only what the author wrote.
 *
 * @module
 */
import { z } from 'zod';
import type { JsonSchema } from './open-responses.js';
import type { SchemaField, SchemaNode } from './schema-node.js';

interface V4Def {
  readonly type: string;
  readonly [key: string]: unknown;
}

interface V4Internals {
  readonly def: V4Def;
  readonly optin?: string;
  readonly innerType?: unknown;
  readonly traits: ReadonlySet<string>;
  readonly propValues?: Readonly<Record<string, ReadonlySet<unknown>>>;
}

function internals(schema: unknown): V4Internals {
  return (schema as { _zod: V4Internals })._zod;
}

function defOf(schema: unknown): V4Def {
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

/**
 * The JSON Schema zod 4 generates for the input side, with dates as date-time strings, no implicit
 * safe-integer or float64 bounds, no regex behind a standard format, discriminated unions as
 * `anyOf`, and `.catch()` values not posing as defaults. Unrepresentable types come out as `{}`:
 * they are refused before this runs.
 */
export function v4JsonSchema(schema: unknown): JsonSchema {
  const done = new Map<unknown, JsonSchema>();
  return z.toJSONSchema(schema as z.core.$ZodType, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    cycles: 'throw',
    reused: 'inline',
    // zod calls this for each node after the nodes it wraps, so `done` holds the inner results.
    override: ({ zodSchema, jsonSchema }) => {
      const json = jsonSchema as JsonSchema;
      adjust(zodSchema, json, done);
      done.set(zodSchema, json);
    },
  }) as JsonSchema;
}

function adjust(schema: unknown, json: JsonSchema, done: ReadonlyMap<unknown, JsonSchema>): void {
  const def = defOf(schema);
  switch (def.type) {
    case 'date':
      json.type = 'string';
      json.format = 'date-time';
      return;
    case 'number':
      dropImplicitBounds(schema, json);
      return;
    case 'string':
      dropImpliedPatterns(schema, json);
      return;
    case 'union':
      // The discriminator already makes the options exclusive; anyOf says the same and is what zod 3 gives.
      if (typeof def.discriminator === 'string' && json.oneOf !== undefined) {
        json.anyOf = json.oneOf;
        delete json.oneOf;
      }
      return;
    case 'catch': {
      const inner = done.get(def.innerType);
      if (inner !== undefined && 'default' in inner) json.default = inner.default;
      else delete json.default;
      return;
    }
  }
}

/** The checks of a node, the node itself first when it is a format (as zod aggregates them). */
function checksOf(schema: unknown): V4Def[] {
  const zod = internals(schema);
  const list = zod.traits.has('$ZodCheck') ? [zod.def] : [];
  for (const check of (zod.def.checks as readonly unknown[] | undefined) ?? [])
    list.push(defOf(check));
  return list;
}

const implicitRanges: Readonly<Record<string, readonly [number, number]>> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};

/** `z.int()` means "an integer" to a model; int32/uint32/float32 bounds are the author's choice and stay. */
function dropImplicitBounds(schema: unknown, json: JsonSchema): void {
  const checks = checksOf(schema);
  let range: readonly [number, number] | undefined;
  for (const check of checks) {
    if (check.check !== 'number_format') continue;
    range = implicitRanges[check.format as string];
    if (range === undefined) return;
  }
  if (range === undefined) return;
  const authored = (kind: string, value: number): boolean =>
    checks.some((c) => c.check === kind && c.inclusive === true && c.value === value);
  if (json.minimum === range[0] && !authored('greater_than', range[0])) delete json.minimum;
  if (json.maximum === range[1] && !authored('less_than', range[1])) delete json.maximum;
}

const standardFormats = new Set([
  'date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4',
  'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer',
  'relative-json-pointer',
]); // prettier-ignore

const jsonFormatNames: Readonly<Record<string, string>> = {
  guid: 'uuid',
  url: 'uri',
  datetime: 'date-time',
};

/**
 * A standard format says what zod's regex for it says, so the regex goes; a format JSON Schema
 * does not know (cuid, starts_with, lowercase, ...) goes and its regex, a real constraint, stays.
 * A datetime that allows a local time or any precision, and a time (never with an offset), accept
 * what the keyword forbids, so they keep their regex and get no format, as zod decides.
 */
function dropImpliedPatterns(schema: unknown, json: JsonSchema): void {
  let format: string | undefined;
  let implied: string | undefined;
  for (const check of checksOf(schema)) {
    if (check.check !== 'string_format') continue;
    const name = jsonFormatNames[check.format as string] ?? (check.format as string);
    if (
      !standardFormats.has(name) ||
      name === 'time' ||
      check.local === true ||
      check.precision === -1
    )
      continue;
    // zod keeps the last format written; so does this.
    format = name;
    implied = check.pattern instanceof RegExp ? check.pattern.source : undefined;
  }
  delete json.contentEncoding;
  delete json.format;
  if (format === undefined) return;
  json.format = format;
  if (json.pattern === implied) delete json.pattern;
  if (!Array.isArray(json.allOf)) return;
  const kept = (json.allOf as unknown[]).filter(
    (p) => !(isPatternOnly(p) && p.pattern === implied),
  );
  if (kept.length === 1 && isPatternOnly(kept[0]) && json.pattern === undefined) {
    json.pattern = kept[0].pattern;
    delete json.allOf;
  } else if (kept.length === 0) delete json.allOf;
  else json.allOf = kept;
}

function isPatternOnly(value: unknown): value is { pattern: string } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && typeof (value as { pattern?: unknown }).pattern === 'string';
}
