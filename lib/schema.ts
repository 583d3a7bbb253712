/**
 * JSON Schemas the model reads, generated from zod schemas: minimal, canonical, byte-stable.
 *
 * @module
 */
import type { JsonSchema } from './open-responses.js';

/** A zod v4 schema (`zod`) or a zod v3 schema (`zod/v3`). */
export type AnyZodSchema = { readonly _zod: unknown } | { readonly _def: unknown; safeParse: unknown };

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
  throw new Error('TODO ' + String(value));
}

/** Compiles a zod object schema for a tool; throws a SchemaError naming the tool when it cannot. */
export function compileZodSchema(schema: AnyZodSchema, options: SchemaOptions = {}): CompiledZodSchema {
  throw new Error('TODO ' + String(schema) + String(options));
}

/** The JSON Schema `tool()` would serve for a zod object schema. */
export function schemaOf(schema: AnyZodSchema, options: SchemaOptions = {}): JsonSchema {
  return compileZodSchema(schema, options).schema;
}
