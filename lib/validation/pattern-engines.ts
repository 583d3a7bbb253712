/**
 * Where the interpreter finds the linear-time pattern engine: registered by the Node entry of the
 * package (and by `registerLinearPatterns()` in a browser app that wants it), so that RE2 stays
 * out of browser bundles that do not ask for it.
 *
 * @module
 */

/** A compiled pattern, as the `pattern` keyword uses it. */
export interface PatternTest {
  /** Whether `text` has a match. */
  test(text: string): boolean;
}

/** Compiles a pattern with flags; throws a SyntaxError for one it cannot run. */
export type PatternCompiler = (pattern: string, flags: string) => PatternTest;

let linear: PatternCompiler | undefined;

/** Makes `compile` the engine of `linear` patterns in schemas interpreted from now on. */
export function setLinearEngine(compile: PatternCompiler): void {
  linear = compile;
}

/** The registered linear-time engine, if any. */
export function linearEngine(): PatternCompiler | undefined {
  return linear;
}
