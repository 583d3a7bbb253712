/**
 * The regular expressions of `pattern` and `patternProperties`, made as ajv makes them (Unicode
 * mode), once per pattern text and engine: JavaScript's RegExp, or RE2's linear-time matching
 * (the default, as in compileValidator) for schemas from elsewhere.
 *
 * @module
 */
import type { PatternEngine } from '../compile.js';
import { linearRegExp } from '../linear-regexp.js';
import { SchemaProblem } from './check.js';

/** What `pattern` keywords call: `test` alone. */
export interface PatternTest {
  /** Whether `text` has a match. */
  test(text: string): boolean;
}

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
      regExp = engine === 'linear' ? linearRegExp(pattern, 'u') : new RegExp(pattern, 'u');
    } catch (error) {
      throw new SchemaProblem((error as Error).message);
    }
    if (made.size >= 1024) made.clear();
    made.set(key, regExp);
  }
  return regExp;
}
