/**
 * The interpreter's building blocks: a check, the error for an unusable schema, type tests.
 *
 * @module
 */
import type { Sink } from './failure.js';

/** Checks `data` at `path`, appending failures to `sink`; false when it fails. */
export type Check = (data: unknown, path: string, sink: Sink) => boolean;

/** A schema that cannot be used, with ajv's way of naming the place (`data/properties/a/type`). */
export class SchemaProblem extends Error {}

const TYPE_TESTS: { [type: string]: (data: unknown) => boolean } = {
  number: (data) => typeof data === 'number' && Number.isFinite(data),
  integer: (data) => typeof data === 'number' && Number.isFinite(data) && data % 1 === 0,
  string: (data) => typeof data === 'string',
  boolean: (data) => typeof data === 'boolean',
  null: (data) => data === null,
  array: (data) => Array.isArray(data),
  object: (data) => typeof data === 'object' && data !== null && !Array.isArray(data),
};

/**
 * The test for data of the JSON type `type` (one of the seven names); numbers must be finite, as
 * with ajv's strictNumbers.
 */
export function typeTest(type: string): (data: unknown) => boolean {
  return TYPE_TESTS[type]!;
}

/** Whether `data` is of the JSON type `type`. */
export function isType(type: string, data: unknown): boolean {
  return TYPE_TESTS[type]!(data);
}

/** Runs checks in order and stops at the first that fails, as ajv does without allErrors. */
export function sequence(steps: readonly Check[]): Check {
  if (steps.length === 0) return () => true;
  if (steps.length === 1) return steps[0]!;
  return (data, path, sink) => {
    for (const step of steps) if (!step(data, path, sink)) return false;
    return true;
  };
}

/** `#/properties/a` as ajv names a schema place in its messages: `data/properties/a`. */
export function dataPath(at: string): string {
  return `data${at.slice(1)}`;
}
