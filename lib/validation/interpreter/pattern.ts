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

// The engine of the schema being compiled. Compiling is synchronous, so a module variable set
// around it (withPatternEngine) reaches every keyword without threading it through each one.
let engine: PatternEngine = 'linear';

/** Runs `compile` with `patterns` as the engine of every pattern it makes. */
export function withPatternEngine<T>(patterns: PatternEngine, compile: () => T): T {
  const previous = engine;
  engine = patterns;
  try {
    return compile();
  } finally {
    engine = previous;
  }
}

/** The matcher for `pattern`; throws a SchemaProblem when it is not a valid one. */
export function patternOf(pattern: string): PatternTest {
  const key = `${engine}:${pattern}`;
  let regExp = made.get(key);
  if (regExp === undefined) {
    try {
      const linear = engine === 'linear' ? linearEngine() : undefined;
      regExp = linear !== undefined ? linear(pattern, 'u') : new RegExp(pattern, 'u');
    } catch (error) {
      throw new SchemaProblem((error as Error).message);
    }
    if (made.size >= 1024) made.clear();
    made.set(key, regExp);
  }
  return regExp;
}
