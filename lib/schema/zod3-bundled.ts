/**
 * `registerZod3` as the browser entry gives it: zod-to-json-schema imported, so that a bundle that
 * calls it carries it (under Node the same function loads it at the first zod 3 schema converted).
 *
 * @module
 */
import { ignoreOverride, zodToJsonSchema } from 'zod-to-json-schema';
import { provideZodToJsonSchema } from './v3-json.js';
import { registerZod3 as register } from './zod3.js';

/**
 * Lets zod 3 schemas be used wherever zod 4 ones are; calling it again changes nothing. A browser
 * bundle does not call it, so that zod 3 and zod-to-json-schema weigh nothing in an app that uses
 * zod 4: an app with zod 3 schemas calls it once, before it builds a tool from one. Without it, a
 * zod 3 schema is refused with a SchemaError that names this function.
 */
export function registerZod3(): void {
  provideZodToJsonSchema({ ignoreOverride, zodToJsonSchema });
  register();
}
