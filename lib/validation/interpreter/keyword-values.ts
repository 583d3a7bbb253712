/**
 * A schema's keyword values as the keyword groups read them (typed-keywords.ts,
 * object-keywords.ts): each checked for its kind, a SchemaProblem naming it otherwise.
 *
 * @module
 */
import { dataPath, SchemaProblem } from './check.js';

/** A schema object, its keywords not yet read. */
export type SchemaObject = { [keyword: string]: unknown };

/** A number keyword's value. */
export function number(schema: SchemaObject, keyword: string, at: string): number {
  const value = schema[keyword];
  if (typeof value !== 'number')
    throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/${keyword} must be number`);
  return value;
}

/** A count keyword's value: an integer >= 0. */
export function count(schema: SchemaObject, keyword: string, at: string): number {
  const value = schema[keyword];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/${keyword} must be >= 0`);
  return value;
}

/** A keyword whose value is an object of schemas, by name or pattern. */
export function map(schema: SchemaObject, keyword: string, at: string): SchemaObject {
  const value = schema[keyword];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/${keyword} must be object`);
  return value as SchemaObject;
}

/** A JSON Pointer segment as it appears in a schema path. */
export function segment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
