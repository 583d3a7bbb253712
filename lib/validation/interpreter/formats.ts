/**
 * The string and number formats the interpreter checks: ajv-formats' full set, read as data (its
 * regular expressions and functions), so both checkers agree on every format.
 *
 * @module
 */
// An ES module copy of ajv-formats' table (see that file): the CommonJS original made browser
// builds warn about it.
import { fullFormats } from './ajv-full-formats.js';

/** Checks a value of the format's type; undefined for a format that checks nothing. */
export type FormatCheck = (value: never) => boolean;

/** A known format: the data type it applies to and its check. */
export interface Format {
  type: 'string' | 'number';
  check: FormatCheck | undefined;
}

const known: { [name: string]: unknown } = fullFormats;

/** The format named `name`, or undefined for an unknown one (ignored, as ajv ignores it). */
export function formatOf(name: string): Format | undefined {
  if (!Object.hasOwn(known, name)) return undefined;
  const def = known[name];
  if (def === true) return { type: 'string', check: undefined };
  if (def instanceof RegExp) return { type: 'string', check: (v: string) => def.test(v) };
  if (typeof def === 'function') return { type: 'string', check: def as FormatCheck };
  if (typeof def === 'object' && def !== null) {
    const { type, validate } = def as { type?: string; validate: unknown };
    const check: FormatCheck | undefined =
      validate instanceof RegExp
        ? (v: string) => validate.test(v)
        : typeof validate === 'function'
          ? (validate as FormatCheck)
          : undefined;
    return { type: type === 'number' ? 'number' : 'string', check };
  }
  return undefined;
}
