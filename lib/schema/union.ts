/**
 * The canonical form of a union of canonical schemas, shared by `anyOf` and by the nullable
 * fields of strict mode: the fewest, plainest words that say the same thing.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';

/** Keywords that describe and never reject: a schema made of these alone accepts anything. */
export const annotationKeys: ReadonlySet<string> = new Set(['description', 'default']);

const literalKeys = new Set(['type', 'const', 'enum']);
const compositionKeys = ['anyOf', 'oneOf', 'allOf', 'not'];

const isNullType = (s: JsonSchema): boolean => Object.keys(s).length === 1 && s.type === 'null';
const isNever = (s: JsonSchema): boolean =>
  Object.keys(s).length === 1 &&
  typeof s.not === 'object' &&
  s.not !== null &&
  Object.keys(s.not).length === 0;
const acceptsAll = (s: JsonSchema): boolean =>
  Object.keys(s).every((key) => annotationKeys.has(key));
const isBareType = (s: JsonSchema): boolean => Object.keys(s).length === 1 && s.type !== undefined;
const isLiteral = (s: JsonSchema): boolean =>
  ('const' in s || Array.isArray(s.enum)) && Object.keys(s).every((key) => literalKeys.has(key));

/** The `type` of a canonical schema as a list. */
export function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? (type as string[]) : [];
}

/** A list of type names as `type` says it: one name alone, "null" last. */
export function typeValue(types: readonly string[]): string | string[] {
  const unique = [...new Set(types)];
  const ordered = unique.includes('null')
    ? [...unique.filter((t) => t !== 'null'), 'null']
    : unique;
  return ordered.length === 1 ? ordered[0] : ordered;
}

/**
 * Enum values in order, each once (values are JSON, so equal text is equal value), null last.
 */
export function enumValues(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  let hasNull = false;
  for (const value of values) {
    if (value === null) hasNull = true;
    else if (!seen.has(JSON.stringify(value))) {
      seen.add(JSON.stringify(value));
      out.push(value);
    }
  }
  if (hasNull) out.push(null);
  return out;
}

/**
 * The canonical union of canonical `branches`: nested plain unions flattened, never-branches
 * dropped, `{}` absorbing the rest, bare types merged into one `type` list, literals into one
 * `enum`, and a single typed branch with null as that branch with "null" added to its type (and
 * its enum). What is left stays `anyOf`, with `{"type":"null"}` last.
 */
export function unionOf(branches: readonly JsonSchema[]): JsonSchema {
  const rest: JsonSchema[] = [];
  let hasNull = false;
  const add = (branch: JsonSchema): void => {
    if (Object.keys(branch).length === 1 && Array.isArray(branch.anyOf)) {
      for (const inner of branch.anyOf as JsonSchema[]) add(inner);
    } else if (isNullType(branch)) hasNull = true;
    else if (!isNever(branch)) rest.push(branch);
  };
  for (const branch of branches) add(branch);
  if (rest.some(acceptsAll)) return {};
  const withNull = (types: string[]): string[] => (hasNull ? [...types, 'null'] : types);
  if (rest.length === 0) return hasNull ? { type: 'null' } : { not: {} };
  if (rest.length > 1 && rest.every(isBareType))
    return { type: typeValue(withNull(rest.flatMap(typesOf))) };
  if (rest.length > 1 && rest.every(isLiteral)) {
    const values = rest.flatMap((s) => ('const' in s ? [s.const] : (s.enum as unknown[])));
    return {
      type: typeValue(withNull(rest.flatMap(typesOf))),
      enum: enumValues(hasNull ? [...values, null] : values),
    };
  }
  if (rest.length === 1) return hasNull ? addNull(rest[0]) : rest[0];
  return { anyOf: hasNull ? [...rest, { type: 'null' }] : rest };
}

/**
 * `schema` that also accepts null: "null" added to a single schema's type (and enum) when it has
 * a type and no composition, null appended to a plain `anyOf`, otherwise an `anyOf` of the schema
 * and the null type. Annotations are the caller's to hoist.
 */
export function addNull(schema: JsonSchema): JsonSchema {
  if (acceptsAll(schema)) return schema;
  if (Object.keys(schema).length === 1 && Array.isArray(schema.anyOf)) {
    return unionOf([...(schema.anyOf as JsonSchema[]), { type: 'null' }]);
  }
  if (schema.type === undefined || compositionKeys.some((key) => key in schema)) {
    return { anyOf: [schema, { type: 'null' }] };
  }
  const out: JsonSchema = { ...schema, type: typeValue([...typesOf(schema), 'null']) };
  if ('const' in schema) {
    delete out.const;
    out.enum = enumValues([schema.const, null]);
  } else if (Array.isArray(schema.enum))
    out.enum = enumValues([...(schema.enum as unknown[]), null]);
  return out;
}
