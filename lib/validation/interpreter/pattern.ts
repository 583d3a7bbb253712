/**
 * The regular expressions of `pattern` and `patternProperties`, made as ajv makes them (Unicode
 * mode), once per pattern text and engine: JavaScript's RegExp, or RE2's linear-time matching
 * (the default, as in compileValidator) for schemas from elsewhere. The linear engine is the one
 * registered (see pattern-engines.ts): the Node entry registers RE2; a browser bundle that has not
 * called `registerLinearPatterns()` runs every pattern with RegExp.
 *
 * @module
 */
import type { PatternEngine } from '../compile.js';
import { linearEngine, type PatternTest } from '../pattern-engines.js';
import { SchemaProblem } from './check.js';

export type { PatternTest } from '../pattern-engines.js';

const made = new Map<string, PatternTest>();

/** The matcher for `pattern` under `engine`; throws a SchemaProblem when it is not a valid one. */
export function patternOf(pattern: string, engine: PatternEngine): PatternTest {
  // Keyed by the engine that really runs it: `linear` is RegExp until one is registered.
  const linear = engine === 'linear' ? linearEngine() : undefined;
  const key = `${linear === undefined ? 'js' : 're2'}:${pattern}`;
  let regExp = made.get(key);
  if (regExp === undefined) {
    try {
      regExp = linear !== undefined ? linear(pattern, 'u') : new RegExp(pattern, 'u');
    } catch (error) {
      throw new SchemaProblem((error as Error).message);
    }
    if (made.size >= 1024) made.clear();
    made.set(key, regExp);
  }
  return regExp;
}
