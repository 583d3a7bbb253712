/**
 * The regular-expression engine ajv uses for `pattern` and `patternProperties` in schemas from
 * elsewhere: RE2 (the pure-JavaScript `re2js`), which matches in time linear in the input.
 *
 * @module
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** One pattern compiled for RE2; reads like a RegExp to ajv (`test`, `toString`). */
class LinearRegExp implements RegExpLike {
  constructor(
    private readonly re: RE2JS,
    private readonly text: string,
  ) {}

  test(input: string): boolean {
    return this.re.test(input);
  }

  /** ajv keys its compiled patterns by this text: distinct from a native RegExp's. */
  toString(): string {
    return `re2:${this.text}`;
  }
}

/**
 * Compiles `pattern` with `flags` ("u" or "", as ajv passes them) for linear-time matching. The
 * pattern must first be a valid ECMAScript pattern under those flags, as JSON Schema says, and
 * then one RE2 can run: lookaround and backreferences, which need backtracking, are refused.
 *
 * Semantics are RE2's on the translated pattern (`re2js`'s `translateRegExp`: `\uXXXX`, `\u{..}`,
 * named groups and `[^]` are rewritten): a search, like `RegExp.test`; `\s` and `.` are ASCII-minded
 * (`\s` is `[\t\n\f\r ]`, `.` excludes `\n` only).
 *
 * @throws SyntaxError with a one-line reason for a pattern JavaScript or RE2 cannot compile.
 */
function compileLinear(pattern: string, flags: string): RegExpLike {
  // Throws the SyntaxError ajv's own engine would, for a pattern JavaScript refuses.
  new RegExp(pattern, flags);
  try {
    return new LinearRegExp(RE2JS.compile(RE2JS.translateRegExp(pattern)), `/${pattern}/${flags}`);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SyntaxError(`pattern /${pattern}/ cannot be matched in linear time (${reason})`);
  }
}

/**
 * ajv's `code.regExp` option for linear-time patterns. `code` is the name ajv's standalone code
 * generation would call it by; schemas here are compiled in memory, where it is not used.
 */
export const linearRegExp: RegExpEngine = Object.assign(compileLinear, { code: 'linearRegExp' });
