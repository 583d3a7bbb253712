/**
 * Where zod 3 schemas get their JSON Schema from, once support for them is registered (see
 * `registerZod3`): zod 3 and zod-to-json-schema stay out of bundles that never register it.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';
import type { SchemaNode } from './node.js';

/** Turns a zod 3 schema into the JSON Schema it generates for its input. */
export type V3Converter = (schema: unknown) => JsonSchema;

/** Reads a zod 3 schema's node (what `tool()` needs to prepare its arguments). */
export type V3Reader = (schema: unknown) => SchemaNode;

let converter: V3Converter | undefined;
let reader: V3Reader | undefined;

/** Makes `convert` the converter for zod 3 schemas, and `read` their reader. */
export function setV3Converter(convert: V3Converter, read: V3Reader): void {
  converter = convert;
  reader = read;
}

/** The registered converter, or undefined when zod 3 support is not registered. */
export function v3Converter(): V3Converter | undefined {
  return converter;
}

/** The registered reader, or undefined when zod 3 support is not registered. */
export function v3Reader(): V3Reader | undefined {
  return reader;
}
