/**
 * Where zod 3 schemas get their JSON Schema from, once support for them is registered (see
 * `registerZod3`): zod 3 and zod-to-json-schema stay out of bundles that never register it.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';

/** Turns a zod 3 schema into the JSON Schema it generates for its input. */
export type V3Converter = (schema: unknown) => JsonSchema;

let converter: V3Converter | undefined;

/** Makes `convert` the converter for zod 3 schemas. */
export function setV3Converter(convert: V3Converter): void {
  converter = convert;
}

/** The registered converter, or undefined when zod 3 support is not registered. */
export function v3Converter(): V3Converter | undefined {
  return converter;
}
