/**
 * JSON Schemas checked by agenttool's own interpreter (no code generation), once per distinct
 * schema text, with a bounded cache.
 *
 * @module
 */
import { oneLine, SchemaError } from '../../errors.js';
import type { JsonSchema } from '../../open-responses.js';
import { schemaDepthProblem, unsupportedProblem } from '../json.js';
import { NO_ARGUMENTS_SCHEMA, type SchemaChecker } from '../schema-checker.js';
import type { PatternEngine } from '../compile.js';
import { SchemaProblem } from './check.js';
import type { Sink } from './failure.js';
import { Compiler } from './interpreter.js';

/** Interpreted schemas kept for reuse; the least recently used is dropped beyond this. */
const CACHE_SIZE = 512;

const cache = new Map<string, SchemaChecker>();

/**
 * The checker for `schema` (undefined: any object), read as ajv reads it in {@link compileValidator} (2020-12 or draft-07
 * keywords alike, unknown keywords and formats ignored, references inside the document only).
 * Throws a SchemaError naming `tool` for a schema it cannot use, `unevaluatedProperties` and
 * `unevaluatedItems` with a schema among them. `patterns` is how `pattern`s are matched, as in
 * {@link compileValidator} (default `linear`).
 */
export function interpretSchema(
  schema: JsonSchema | undefined,
  tool: string,
  patterns: PatternEngine = 'linear',
): SchemaChecker {
  const source = schema ?? NO_ARGUMENTS_SCHEMA;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new SchemaError(tool, 'a schema must be a JSON object');
  }
  const tooDeep = schemaDepthProblem(source);
  if (tooDeep !== undefined) throw new SchemaError(tool, tooDeep);
  const unsupported = unsupportedProblem(source);
  if (unsupported !== undefined) throw new SchemaError(tool, unsupported);
  let key: string;
  try {
    key = patterns + ':' + JSON.stringify(source);
  } catch (error) {
    throw new SchemaError(tool, `not JSON: ${oneLine((error as Error).message)}`);
  }
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  // Our own copy, so a caller mutating its schema later changes nothing here.
  const root = JSON.parse(key.slice(patterns.length + 1)) as JsonSchema;
  let check;
  try {
    check = new Compiler(root, patterns).schema(root, '#');
  } catch (error) {
    if (error instanceof RangeError)
      throw new SchemaError(tool, 'the schema refers to itself without end (a $ref cycle)');
    if (error instanceof SchemaProblem) throw new SchemaError(tool, oneLine(error.message));
    throw error;
  }
  const checker: SchemaChecker = (value) => {
    const sink: Sink = { errors: [], composite: 0 };
    return check(value, '', sink) ? undefined : sink.errors;
  };
  cache.set(key, checker);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return checker;
}
