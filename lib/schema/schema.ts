/**
 * JSON Schemas the model reads, generated from zod schemas: minimal, canonical, byte-stable.
 *
 * @module
 */
import { describeThrown, SchemaError } from '../errors.js';
import type { JsonSchema } from '../open-responses.js';
import { canonicalSchema } from './canonical.js';
import { schemaDepthProblem } from '../validation/json.js';
import { compilePreparer, requireObjectRoot } from './prepare.js';
import { isV3Schema } from './v3.js';
import { v3Converter, v3Reader } from './v3-support.js';
import { isV4Schema, readV4 } from './v4.js';
import { v4JsonSchema } from './v4-json.js';

/** A zod v4 schema (`zod`) or a zod v3 schema (`zod/v3`, or the standalone `zod@3` package). */
export type AnyZodSchema =
  | {
      /** zod 4's internals; their presence marks a zod 4 schema. */
      readonly _zod: unknown;
    }
  | {
      /** zod 3's definition. */
      readonly _def: unknown;
      /** zod 3's parse. */
      safeParse: unknown;
    };

/** Options for {@link schemaOf} and {@link compileZodSchema}. */
export interface SchemaOptions {
  /** Generate under the strict rules. */
  strict?: boolean;
  /** The tool the schema belongs to, named in a SchemaError. */
  tool?: string;
}

/** A zod schema made ready for serving and decoding. */
export interface CompiledZodSchema {
  /** The canonical JSON Schema of the arguments object. */
  schema: JsonSchema;
  /**
   * Rewrites a validated arguments value (in place or anew) before zod decodes it: date-time
   * strings into Dates where the zod schema wants a Date, and, in strict mode, a null sent for an
   * optional field into an absent one. Undefined when the schema needs neither.
   */
  prepare: ((value: unknown) => unknown) | undefined;
}

/** Whether `value` is a zod schema of either major version. */
export function isZodSchema(value: unknown): value is AnyZodSchema {
  return isV4Schema(value) || isV3Schema(value);
}

/**
 * Compiles a zod object schema for a tool, once, at registration.
 *
 * The schema is canonical: the root is `{"type":"object","properties":{...},"required":[...]}`,
 * properties keep their declaration order, and every schema object writes its members in the
 * order of `type, description, format, enum, const, minimum, exclusiveMinimum, maximum,
 * exclusiveMaximum, multipleOf, minLength, maxLength, pattern, minItems, maxItems, uniqueItems,
 * minProperties, maxProperties, default, properties, required, prefixItems, items, propertyNames,
 * additionalProperties, anyOf, oneOf, allOf, not`, and nothing else. The same schema always gives
 * the same bytes, and a zod 3 schema gives the bytes of its zod 4 equivalent. The input side is
 * described (what the model writes): a pipe or transform shows what it accepts.
 *
 * - `.describe()`/`.meta({ description })` become `description`; `z.int()` is `{"type":"integer"}`
 *   without zod's implicit safe-integer bounds; a standard `format` (email, uri, uuid, date-time,
 *   ...) stands without zod's regex for it, and zod's non-standard formats (cuid, starts_with,
 *   ...) become their regex alone.
 * - `.optional()`/`.default()` properties are left out of `required`; `.default(x)` writes
 *   `"default": x` outside strict mode. `z.object` writes no `additionalProperties`,
 *   `z.strictObject` writes `false`, `z.looseObject` writes none (extra properties are allowed
 *   either way), `.catchall(s)` writes `s`.
 * - Nullable is `"type":[..., "null"]` (an enum gets null last) where the inner schema has a type
 *   and no `anyOf`; otherwise an `anyOf` with `{"type":"null"}` last.
 * - `z.date()`, `z.coerce.date()` and `z.iso.datetime()` are `{"type":"string","format":"date-time"}`;
 *   `z.any()`/`z.unknown()` are `{}`; records are `{"type":"object","additionalProperties":s}`;
 *   discriminated unions are `anyOf`.
 * - Strict mode: every property required, optional ones nullable, every object
 *   `"additionalProperties":false`, no `default`.
 *
 * Throws a SchemaError naming `options.tool` (and the path) for a root that is not an object, a
 * recursive schema, a type JSON Schema cannot carry (bigint, symbol, undefined, void, NaN,
 * function, Map, Set, promise, custom, file, never), and, in strict mode, a record or catchall.
 */
export function compileZodSchema(
  schema: AnyZodSchema,
  options: SchemaOptions = {},
): CompiledZodSchema {
  const tool = options.tool ?? '';
  const strict = options.strict === true;
  const v4 = isV4Schema(schema);
  if (!v4 && !isV3Schema(schema)) throw new SchemaError(tool, 'not a zod schema');
  const v3JsonSchema = v3Converter();
  const read = v4 ? readV4 : v3Reader();
  if (read === undefined || (!v4 && v3JsonSchema === undefined))
    throw new SchemaError(
      tool,
      "a zod 3 schema needs zod 3 support: call registerZod3() from 'agenttool' first",
    );
  try {
    requireObjectRoot(schema, read, tool);
    const prepare = compilePreparer(schema, read, { strict, tool });
    const generated = v4 ? v4JsonSchema(schema) : v3JsonSchema!(schema);
    // Canonicalising recurses once per level: a schema too deep to walk is refused first.
    const tooDeep = schemaDepthProblem(generated);
    if (tooDeep !== undefined) throw new SchemaError(tool, tooDeep);
    const json = canonicalSchema(generated, { strict, tool });
    if (
      json.type !== 'object' ||
      json.properties === undefined ||
      'anyOf' in json ||
      'allOf' in json
    )
      throw new SchemaError(tool, 'tool parameters must be an object schema');
    return { schema: json, prepare };
  } catch (error) {
    if (error instanceof SchemaError) throw error;
    const message = describeThrown(error);
    throw new SchemaError(
      tool,
      message.startsWith('Cycle detected') ? 'recursive schema' : message,
    );
  }
}

/** The JSON Schema `tool()` would serve for a zod object schema; see {@link compileZodSchema}. */
export function schemaOf(schema: AnyZodSchema, options: SchemaOptions = {}): JsonSchema {
  return compileZodSchema(schema, options).schema;
}
