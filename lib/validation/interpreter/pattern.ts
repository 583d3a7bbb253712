/**
 * The regular expressions of `pattern` and `patternProperties`, made as ajv makes them (Unicode
 * mode), once per pattern text.
 *
 * @module
 */
import { SchemaProblem } from './check.js';

const made = new Map<string, RegExp>();

/** The RegExp for `pattern`; throws a SchemaProblem when it is not a valid one. */
export function patternOf(pattern: string): RegExp {
  let regExp = made.get(pattern);
  if (regExp === undefined) {
    try {
      regExp = new RegExp(pattern, 'u');
    } catch (error) {
      throw new SchemaProblem((error as Error).message);
    }
    if (made.size >= 1024) made.clear();
    made.set(pattern, regExp);
  }
  return regExp;
}
