/**
 * Argument validation: raw JSON text in, a checked value out, or a ValidationError phrased for the
 * model.
 *
 * @module
 */
import type { JsonSchema } from './open-responses.js';
import type { ValidationError } from './errors.js';

/** Limits on raw argument text, checked before it is parsed. */
export interface ArgumentLimits {
  /** Most characters of argument text (default 1 MiB). */
  maxLength?: number;
  /** Deepest nesting of arrays and objects (default 256). */
  maxDepth?: number;
}

/** A compiled validator for one schema. */
export interface ArgumentValidator {
  /**
   * Parses raw argument text ("" is `{}`) and checks it against the schema; throws a
   * ValidationError for the first problem.
   */
  parse(raw: string): unknown;
}

/**
 * Compiles `schema` once (cached by its canonical text); undefined means no arguments. Throws a
 * SchemaError naming `options.tool` for a schema that does not compile.
 */
export function compileValidator(
  schema: JsonSchema | undefined,
  options: { tool?: string; limits?: ArgumentLimits } = {},
): ArgumentValidator {
  throw new Error('TODO ' + String(schema) + String(options));
}

/** The ValidationError for a failed zod parse (v3 or v4 ZodError): first issue only. */
export function zodValidationError(error: unknown): ValidationError {
  throw new Error('TODO ' + String(error));
}
