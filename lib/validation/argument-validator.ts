/**
 * An ArgumentValidator around a schema checker: the raw-text limits and JSON parsing, then the
 * schema, with every failure one ValidationError phrased for the model.
 *
 * @module
 */
import { oneLine, SchemaError, ValidationError } from '../errors.js';
import { ajvValidationError } from './ajv-error.js';
import { jsonSize, parseArgumentsText } from './json.js';
import { answersAlike, type SchemaChecker } from './schema-checker.js';
import { withWorkBudget, WorkLimitError } from './work-budget.js';

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
  /**
   * Checks a value already parsed from JSON text against the schema, as `parse` does after
   * parsing: returns it unchanged or throws a ValidationError for the first problem. No length,
   * depth or `__proto__` check: those are the text's, and `parse`'s. `size`, the length of the
   * text it was parsed from, sets the check's work budget (default: measured from the value).
   */
  check(value: unknown, size?: number): unknown;
  /**
   * Parses raw argument text as `parse` does, with every check on the text (length, nesting
   * depth, JSON syntax, an object, no `__proto__`), but not the schema.
   */
  read(raw: string): { [key: string]: unknown };
}

/**
 * The validator that parses raw text within `limits` and checks it with `check`. Throws a
 * SchemaError naming `tool` when the schema recurses without end on the simplest value (`{}`), and
 * a RangeError for a limit that is not a positive number.
 */
export function validatorOf(
  check: SchemaChecker,
  options: { tool?: string | undefined; limits?: ArgumentLimits | undefined },
): ArgumentValidator {
  const maxLength = limitOf(options.limits?.maxLength, 'maxLength');
  const maxDepth = limitOf(options.limits?.maxDepth, 'maxDepth');
  // A `$ref` cycle that consumes no data (`{"$ref":"#"}`) compiles, then recurses without end on
  // any value: refuse it here, where the commonest form shows on the simplest value.
  if (endlessOn({}, answersAlike.get(check) ?? check))
    throw new SchemaError(
      options.tool ?? '',
      'the schema refers to itself without end (a $ref cycle)',
    );
  const checked = (value: unknown, size: number): unknown => {
    let errors;
    try {
      errors = withWorkBudget(size, check, value);
    } catch (err) {
      // A schema whose work grows past the size of the arguments: this call fails, at once.
      if (err instanceof WorkLimitError)
        throw new ValidationError('', `cannot be checked: ${oneLine(err.message)}`);
      // The same cycle deeper in the schema, reached only by some values: no crash, one line.
      if (!(err instanceof RangeError)) throw err;
      throw new ValidationError('', 'cannot be checked: the schema refers to itself without end');
    }
    if (errors !== undefined) throw ajvValidationError(errors, value);
    return value;
  };
  const read = (raw: string) => parseArgumentsText(raw, maxLength, maxDepth);
  return {
    // `read` refuses anything but a string before its length is read.
    parse: (raw: string): unknown => checked(read(raw), raw.length),
    check: (value: unknown, size?: number): unknown => checked(value, size ?? jsonSize(value)),
    read,
  };
}

/** Whether checking `value` recurses until the stack runs out. */
function endlessOn(value: unknown, check: SchemaChecker): boolean {
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
