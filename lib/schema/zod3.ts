/**
 * Support for zod 3 schemas (`zod/v3`) in `tool()`, `schemaOf` and `compileZodSchema`.
 *
 * @module
 */
import { setV3Converter } from './v3-support.js';
import { v3JsonSchema } from './v3-json.js';
import { readV3 } from './v3.js';

/**
 * Lets zod 3 schemas be used wherever zod 4 ones are; calling it again changes nothing.
 *
 * Under Node, importing `agenttool` calls it, and zod-to-json-schema is loaded at the first zod 3
 * schema converted. A browser bundle (the package's `browser` export condition) does not call it,
 * so that zod 3 and zod-to-json-schema weigh nothing in an app that uses zod 4: an app with zod 3
 * schemas calls the browser entry's `registerZod3` (zod3-bundled.ts) once, before it builds a tool
 * from one. Without it, a zod 3 schema is refused with a SchemaError that names this function.
 */
export function registerZod3(): void {
  setV3Converter(v3JsonSchema, readV3);
}
