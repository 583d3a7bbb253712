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

/** Whether `data` is of the JSON type `type`; numbers must be finite, as with ajv's strictNumbers. */
export function isType(type: string, data: unknown): boolean {
  switch (type) {
    case 'number':
      return typeof data === 'number' && Number.isFinite(data);
    case 'integer':
      return typeof data === 'number' && Number.isFinite(data) && data % 1 === 0;
    case 'string':
      return typeof data === 'string';
    case 'boolean':
      return typeof data === 'boolean';
    case 'null':
      return data === null;
    case 'array':
      return Array.isArray(data);
    default:
      return typeof data === 'object' && data !== null && !Array.isArray(data);
  }
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
