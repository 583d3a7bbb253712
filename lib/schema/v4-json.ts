/**
 * JSON Schema for zod 4 schemas through `z.toJSONSchema`, with the fixes that make it say only
 * what the author wrote.
 *
 * @module
 */
// zod's core, not `zod`: the classic API would bring all of zod's locales into a bundle.
import { toJSONSchema, type $ZodType } from 'zod/v4/core';
import type { JsonSchema } from '../open-responses.js';
import { defOf, internals, type V4Def } from './v4.js';

/**
 * The JSON Schema zod 4 generates for the input side, with dates as date-time strings, no implicit
 * safe-integer or float64 bounds, no regex behind a standard format, discriminated unions as
 * `anyOf`, and `.catch()` values not posing as defaults. Unrepresentable types come out as `{}`:
 * they are refused before this runs.
 */
export function v4JsonSchema(schema: unknown): JsonSchema {
  const done = new Map<unknown, JsonSchema>();
  return toJSONSchema(schema as $ZodType, {
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
