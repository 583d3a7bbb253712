/**
 * The members a canonical schema may have, their order, and the small JSON helpers the
 * canonical form is built with.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';

/**
 * The members of every canonical schema object, in the order they are written. Nothing else is
 * written: no `$schema`, `$ref`/`$defs`, `title`, `examples`, `readOnly`, `contentEncoding` or
 * custom metadata, except `x-mcp-header` (an argument mirrored into an HTTP header over MCP; see
 * docs/mcp.md).
 */
export const memberOrder = [
  'type', 'description', 'format', 'enum', 'const',
  'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties',
  'default', 'x-mcp-header',
  'properties', 'required', 'prefixItems', 'items', 'propertyNames', 'additionalProperties',
  'anyOf', 'oneOf', 'allOf', 'not',
] as const; // prettier-ignore

/** The constraint members written as numbers, in member order. */
export const numberKeys = memberOrder.slice(
  memberOrder.indexOf('minimum'),
  memberOrder.indexOf('default'),
);

/** Object schemas with disjoint properties and nothing else merge into one (an intersection). */
export function mergeObjects(schemas: readonly JsonSchema[]): JsonSchema | undefined {
  const allowed = new Set(['type', 'properties', 'required', 'additionalProperties']);
  const properties: JsonSchema = {};
  const required: string[] = [];
  const closed = schemas.map((s) => s.additionalProperties === false);
  if (closed.some((c) => c !== closed[0])) return undefined;
  for (const s of schemas) {
    if (
      s.type !== 'object' ||
      !isObject(s.properties) ||
      Object.keys(s).some((k) => !allowed.has(k))
    )
      return undefined;
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) return undefined;
    for (const key of Object.keys(s.properties)) {
      if (hasOwn(properties, key)) return undefined;
      setOwn(properties, key, s.properties[key]);
    }
    required.push(...(s.required as string[]));
  }
  const merged: JsonSchema = { type: 'object', properties, required };
  if (closed[0] === true) merged.additionalProperties = false;
  return merged;
}

/** The type a typeless `const`/`enum` implies, so that equal literals read the same however written. */
export function literalTypes(schema: JsonSchema): string[] {
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
  return values.map((v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v,
  );
}

/** `schema` with its members in {@link memberOrder}, members not in it left out. */
export function ordered(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of memberOrder)
    if (hasOwn(schema, key) && schema[key] !== undefined) out[key] = schema[key];
  return out;
}

/** A value as JSON would carry it (a Date as its ISO text), or undefined when JSON cannot. */
export function jsonValue(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `key` is an own property of `o`, whatever its prototype says. */
export const hasOwn = (o: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(o, key);

/** Sets an own property even for the key `__proto__`, which plain assignment would turn into a prototype change. */
export function setOwn(target: JsonSchema, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
