/**
 * What checks a parsed value against one schema, whichever engine does it: ajv's generated code
 * or agenttool's interpreter.
 *
 * @module
 */
import type { ErrorObject } from 'ajv';
import type { JsonSchema } from '../open-responses.js';

/**
 * Checks a value parsed from JSON: undefined when it passes, otherwise the failures in ajv's
 * shape (the first failure, after the failed branches of the unions around it). May throw a
 * RangeError when the schema refers to itself without end on this value.
 */
export type SchemaChecker = (value: unknown) => readonly ErrorObject[] | undefined;

/** What a tool without parameters accepts: any object (unknown properties allowed and ignored). */
export const NO_ARGUMENTS_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: Object.freeze({}),
  required: Object.freeze([]),
});

/**
 * For a checker that compiles its code at its first check (ajv's, see validation.ts): one that
 * answers the same at once (the interpreter's), which the probe of a new validator for a `$ref`
 * cycle runs instead, so that making a validator compiles nothing.
 */
export const answersAlike = new WeakMap<SchemaChecker, SchemaChecker>();
