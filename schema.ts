/**
 * `agenttool/schema`: argument checking and schema reading outside `tool()`, for servers, adapters
 * and tests that take schemas they did not write. `tool()` and `rawTool()` (from `agenttool`) do
 * all of it themselves; an application reaches for this entry only to check raw arguments against
 * a JSON Schema of its own (`compileValidator`), to compile a zod schema as `tool()` would
 * (`compileZodSchema`), or to phrase zod's error as the model reads it (`zodValidationError`).
 *
 * @module agenttool/schema
 */
// Checking raw arguments against any JSON Schema, with the messages `tool()` gives, and the limits
// that bound a hostile value.
export {
  compileValidator,
  DEFAULT_LIMITS,
  type ArgumentLimits,
  type ArgumentValidator,
  type PatternEngine,
  type ValidatorOptions,
} from './lib/validation/validation.js';
// ajv imported, for bundles: the Node entry registers it and loads it at the first schema compiled.
export { registerAjv } from './lib/validation/ajv-bundled.js';
// Reading a zod schema as `tool()` does: the JSON Schema the model reads, and the decoder.
export {
  compileZodSchema,
  isZodSchema,
  schemaOf,
  type AnyZodSchema,
  type CompiledZodSchema,
  type SchemaOptions,
} from './lib/schema/schema.js';
// zod's error as the one line the model reads.
export { zodValidationError } from './lib/validation/validation.js';
// Whether a tool checks its own arguments, so a server need not check them again.
export { checksOwnArguments } from './lib/tool.js';
