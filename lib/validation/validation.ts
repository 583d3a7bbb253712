/**
 * Argument validation: raw JSON text in, a checked value out, or a ValidationError phrased for the
 * model.
 *
 * Every failure is one line naming the first problem: `invalid arguments: <path>: <problem>`, no
 * path at the root. Paths dot identifier-like keys and bracket array indexes (`a.b[2]`); any other
 * key is bracketed and JSON-quoted (`a["we ird"]`, `["0"]`), so a path never depends on guessing
 * which keys a reader will take for numbers. A missing or unexpected property is reported at the
 * path of the object holding it, with its name in the problem (`opts: missing required property
 * "x"`). Values read as JSON (`"mid"`, `1.5`, `null`, strings cut after 40 characters with `…`),
 * except objects and arrays, which read as `object` and `array`.
 *
 * An own `__proto__` key is refused wherever it appears (`a: property "__proto__" is not
 * allowed`). JSON.parse makes it a harmless own property, but `Object.assign` or a merge into
 * another object would hand it to the prototype setter; no tool argument needs the name.
 * `constructor` and `prototype` are ordinary keys: they are own data properties, checked by the
 * schema like any other, and copying them with assign, spread or structuredClone is safe.
 *
 * @module
 */
import { SchemaError, ValidationError } from '../errors.js';
import type { JsonSchema } from '../open-responses.js';
import { ajvValidationError } from './ajv-error.js';
import { compileSchema, type PatternEngine } from './compile.js';
import { parseArgumentsText } from './json.js';

export { zodValidationError } from './zod.js';
export type { PatternEngine } from './compile.js';

/** Limits on raw argument text, checked before it is parsed. */
export interface ArgumentLimits {
  /** Most characters (UTF-16 code units) of argument text (default 1 MiB: 1048576). */
  maxLength?: number;
  /** Deepest nesting of arrays and objects, the root object counting as 1 (default 256). */
  maxDepth?: number;
}

/** The limits used where none are given. */
export const DEFAULT_LIMITS: Readonly<Required<ArgumentLimits>> = Object.freeze({
  maxLength: 1_048_576,
  maxDepth: 256,
});

/** A compiled validator for one schema. */
export interface ArgumentValidator {
  /**
   * Parses raw argument text ("" or whitespace is `{}`) and checks it against the schema; returns
   * the parsed value, unchanged by validation (no defaults, no coercion), or throws a
   * ValidationError for the first problem. Checks run in this order: length, nesting depth, JSON
   * syntax, root is an object, no `__proto__` key anywhere, the schema.
   */
  parse(raw: string): unknown;
}

/**
 * Compiles `schema` once (cached by its JSON text, so tools sharing a schema share the compiled
 * function); undefined means no arguments, which accepts any object, unknown properties included
 * (they are ignored, as outside strict mode). Throws a SchemaError naming `options.tool` for a
 * schema that does not compile, and a RangeError for a limit that is not a positive number.
 *
 * The schema is read as JSON Schema 2020-12, or draft-07 when its `$schema` names draft-04, 06 or
 * 07 (draft-04's boolean `exclusiveMinimum` is refused). Unknown keywords and formats are ignored;
 * the formats of ajv-formats (date-time, email, uri, uuid, ...) are checked. A property required
 * by the schema must be the object's own: `constructor` is not supplied by Object.prototype.
 * Numbers JSON cannot hold (1e400 parses as Infinity) fail a `number` or `integer` type.
 *
 * `pattern`s and `patternProperties` keys are matched in linear time by default (RE2, see
 * {@link PatternEngine}): a schema from elsewhere cannot block the process with a backtracking
 * pattern, and a pattern that needs backtracking (lookaround, backreferences) or that JavaScript
 * cannot compile under the `u` flag is a SchemaError. `patterns: 'native'` uses JavaScript's
 * RegExp instead, for schemas the author wrote (`tool()` does so for zod-made schemas, whose
 * patterns zod itself runs natively anyway).
 *
 * ## Example
 * ```ts
 * const validator = compileValidator(
 *   { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
 *   { tool: 'read_file' },
 * );
 * validator.parse('{"path":"/etc/hosts"}'); // { path: '/etc/hosts' }
 * validator.parse('{"path":1}'); // throws: invalid arguments: path: expected string, got 1
 * ```
 */
export function compileValidator(
  schema: JsonSchema | undefined,
  options: { tool?: string; limits?: ArgumentLimits; patterns?: PatternEngine } = {},
): ArgumentValidator {
  const maxLength = limitOf(options.limits?.maxLength, 'maxLength');
  const maxDepth = limitOf(options.limits?.maxDepth, 'maxDepth');
  const tool = options.tool ?? '';
  const schemaCheck = compileSchema(schema, tool, options.patterns ?? 'linear');
  // A `$ref` cycle that consumes no data (`{"$ref":"#"}`) compiles, then recurses without end on
  // any value: refuse it here, where the commonest form shows on the simplest value.
  if (endlessOn({}, schemaCheck.current()))
    throw new SchemaError(tool, 'the schema refers to itself without end (a $ref cycle)');
  return {
    parse(raw: string): unknown {
      const value = parseArgumentsText(raw, maxLength, maxDepth);
      const check = schemaCheck.current();
      let valid: boolean;
      try {
        valid = check(value) as boolean;
      } catch (err) {
        // The same cycle deeper in the schema, reached only by some values: no crash, one line.
        if (!(err instanceof RangeError)) throw err;
        throw new ValidationError('', 'cannot be checked: the schema refers to itself without end');
      }
      if (!valid) throw ajvValidationError(check.errors, value);
      return value;
    },
  };
}

/** Whether checking `value` recurses until the stack runs out. */
function endlessOn(value: unknown, check: (value: unknown) => unknown): boolean {
  try {
    check(value);
    return false;
  } catch (err) {
    return err instanceof RangeError;
  }
}

function limitOf(value: number | undefined, name: keyof ArgumentLimits): number {
  if (value === undefined) return DEFAULT_LIMITS[name];
  if (typeof value !== 'number' || !(value >= 1)) {
    throw new RangeError(`argument limit ${name} must be a positive number, got ${String(value)}`);
  }
  return value;
}
