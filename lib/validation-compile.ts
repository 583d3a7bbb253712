/**
 * JSON Schemas compiled by ajv, once per distinct schema text, with a bounded cache.
 *
 * @module
 */
import Ajv2020 from 'ajv/dist/2020.js';
import Ajv07 from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SchemaError, oneLine } from './errors.js';
import type { JsonSchema } from './open-responses.js';

/** Compiled schemas kept for reuse; the least recently used is dropped beyond this. */
export const SCHEMA_CACHE_SIZE = 512;

/** What a tool without parameters accepts: any object (unknown properties allowed and ignored). */
export const NO_ARGUMENTS_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: Object.freeze({}),
  required: Object.freeze([]),
});

type Dialect = '2020-12' | 'draft-07';
type AjvCore = InstanceType<typeof Ajv2020.default> | InstanceType<typeof Ajv07.default>;

interface Compiled {
  validate: ValidateFunction;
  /** The instance that holds it when shared; undefined for a schema with its own instance. */
  shared: AjvCore | undefined;
  /** The object ajv compiled (ours, parsed from the cache key), for removeSchema. */
  schema: object;
}

const cache = new Map<string, Compiled>();
const sharedInstances: Partial<Record<Dialect, AjvCore>> = {};

function newInstance(dialect: Dialect): AjvCore {
  const options = {
    // User and remote schemas carry keywords ajv does not know; they are ignored, not refused.
    strict: false,
    // Infinity (JSON.parse of 1e400) is not a number a schema can mean.
    strictNumbers: true,
    // `required: ["constructor"]` must not be met by Object.prototype.constructor.
    ownProperties: true,
    // Errors carry the schema and the data, which the messages quote.
    verbose: true,
    allErrors: false,
    // Unknown formats and keywords are expected in remote schemas; no console noise per tool.
    logger: false as const,
  };
  const ajv = dialect === 'draft-07' ? new Ajv07.default(options) : new Ajv2020.default(options);
  addFormats.default(ajv);
  return ajv;
}

/** Draft-04, 06 and 07 schemas get ajv's draft-07 rules; everything else 2020-12's. */
function dialectOf(schema: JsonSchema): Dialect {
  const declared = schema.$schema;
  return typeof declared === 'string' && /draft-0[467]\b/.test(declared) ? 'draft-07' : '2020-12';
}

/**
 * The ajv function for `schema` (undefined: {@link NO_ARGUMENTS_SCHEMA}), compiled once per
 * distinct JSON text and shared by every caller with the same text. Throws a SchemaError naming
 * `tool` when the schema is not a JSON object or ajv refuses it.
 */
export function compileSchema(schema: JsonSchema | undefined, tool: string): ValidateFunction {
  const source = schema ?? NO_ARGUMENTS_SCHEMA;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new SchemaError(tool, 'a schema must be a JSON object');
  }
  let key: string;
  try {
    key = JSON.stringify(source);
  } catch (error) {
    throw new SchemaError(
      tool,
      `not JSON: ${oneLine(error instanceof Error ? error.message : String(error))}`,
    );
  }
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Refresh its place: a Map iterates in insertion order, so the first key is the oldest.
    cache.delete(key);
    cache.set(key, hit);
    return hit.validate;
  }
  const compiled = compileText(key, tool);
  cache.set(key, compiled);
  if (cache.size > SCHEMA_CACHE_SIZE) evictOldest();
  return compiled.validate;
}

function compileText(text: string, tool: string): Compiled {
  // Ajv compiles our own copy, so a caller mutating its schema later changes nothing here.
  const schema = JSON.parse(text) as JsonSchema;
  const dialect = dialectOf(schema);
  // The instance's own meta-schema checks it; a `$schema` naming another (draft-04, 2019-09, an
  // unknown URI) would make ajv look up a meta-schema it does not have.
  delete schema.$schema;
  // An `$id` registers the schema by name in its instance, so two tools whose schemas reuse an id
  // would collide in a shared one.
  const own = text.includes('"$id"');
  const ajv = own ? newInstance(dialect) : (sharedInstances[dialect] ??= newInstance(dialect));
  try {
    return { validate: ajv.compile(schema), shared: own ? undefined : ajv, schema };
  } catch (error) {
    // A failed compile may leave the schema in the instance's cache.
    ajv.removeSchema(schema);
    throw new SchemaError(tool, oneLine(error instanceof Error ? error.message : String(error)));
  }
}

function evictOldest(): void {
  const oldest = cache.keys().next();
  if (oldest.done === true) return;
  const entry = cache.get(oldest.value)!;
  cache.delete(oldest.value);
  // The compiled function stays valid for whoever holds it; ajv only forgets it.
  entry.shared?.removeSchema(entry.schema);
}
