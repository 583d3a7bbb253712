/** The two ways compileValidator checks a schema, for tests that must hold for both. */
import type { ArgumentValidator, JsonSchema } from '../../index.js';
import { compileValidator } from '../../schema.js';
import type { ValidatorOptions } from '../../lib/validation/validation.js';

/** One way of checking, named for test titles. */
export interface Engine {
  /** `ajv` (generated code) or `interpreter` (no code generation). */
  engine: string;
  /** compileValidator with that engine forced. */
  compileValidator(schema: JsonSchema | undefined, options?: ValidatorOptions): ArgumentValidator;
}

/** ajv's generated code, and agenttool's interpreter (what runs where eval is not allowed). */
export const ENGINES: readonly Engine[] = [
  {
    engine: 'ajv',
    compileValidator: (schema, options = {}) =>
      compileValidator(schema, { ...options, codeGeneration: true }),
  },
  {
    engine: 'interpreter',
    compileValidator: (schema, options = {}) =>
      compileValidator(schema, { ...options, codeGeneration: false }),
  },
];
