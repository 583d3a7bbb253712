/**
 * The regular-expression engine ajv uses for `pattern` and `patternProperties` in schemas from
 * elsewhere: RE2 (the pure-JavaScript `re2js`), which matches in time linear in the input.
 *
 * @module
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import type { RE2JS } from 're2js';
import { requiredModule } from '../optional-module.js';
import { setLinearEngine } from './pattern-engines.js';
import { spendMatching } from './work-budget.js';

/**
 * RE2, as the browser entry's `registerLinearPatterns` hands it over (imported), or else loaded at
 * the first pattern compiled (Node): a process whose schemas have no pattern never loads it.
 */
let re2: typeof RE2JS | undefined;

/** Makes `engine` (re2js's RE2JS, imported) the one linear patterns compile with. */
export function provideRe2(engine: typeof RE2JS): void {
  re2 ??= engine;
}

/**
 * The largest RE2 program a pattern may compile to. Counted repetition is spelt out: `[a-z]{1000}`
 * is a thousand instructions, and matching costs up to the program's size per character of the
 * string (see {@link spendMatching}). Real patterns stay far below it (a hostname pattern with
 * `{1,63}` and `{2,63}` is about 1,400).
 */
export const MAX_PATTERN_PROGRAM = 5_000;

/**
 * One pattern compiled for RE2; reads like a RegExp to ajv (`test`, `toString`). Each match is
 * counted against the check's work budget before it runs (see work-budget.ts).
 */
class LinearRegExp implements RegExpLike {
  private readonly program: number;

  constructor(
    private readonly re: RE2JS,
    private readonly pattern: string,
    private readonly text: string,
  ) {
    this.program = re.programSize();
  }

  test(input: string): boolean {
    spendMatching(this.pattern, this.program, input.length);
    return this.re.test(input);
  }

  /** ajv keys its compiled patterns by this text: distinct from a native RegExp's. */
  toString(): string {
    return `re2:${this.text}`;
  }
}

/** What ECMAScript's `\s` matches; RE2's `\s` is ASCII whitespace alone. */
const SPACE =
  '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** What ECMAScript's `.` does not match (without the `s` flag); RE2's `.` excludes `\n` only. */
const LINE_END = '\\n\\r\\u2028\\u2029';

/**
 * `pattern` with the classes whose meaning differs between ECMAScript and RE2 spelt out in
 * ECMAScript's sense: `\s`, `\S` (outside a character class) and `.`. The pattern is already known
 * to be valid ECMAScript, so a backslash always escapes the next character.
 */
function ecmaClasses(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? SPACE : `[${SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${SPACE}]`;
      else out += ch + next;
    } else if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
    } else out += ch === '.' ? `[^${LINE_END}]` : ch;
  }
  return out;
}

/**
 * Compiles `pattern` with `flags` ("u" or "", as ajv passes them) for linear-time matching. The
 * pattern must first be a valid ECMAScript pattern under those flags, as JSON Schema says, and
 * then one RE2 can run: lookaround and backreferences, which need backtracking, are refused.
 *
 * Matching is a search, like `RegExp.test`, with ECMAScript's meaning for `\s`, `\S` and `.`
 * (spelt out before translation) and `re2js`'s `translateRegExp` for the rest (`\uXXXX`,
 * `\u{..}`, named groups, `[^]`). `\d`, `\w` and `\b` are ASCII in both.
 *
 * @throws SyntaxError with a one-line reason for a pattern JavaScript or RE2 cannot compile.
 */
function compileLinear(pattern: string, flags: string): RegExpLike {
  // Throws the SyntaxError ajv's own engine would, for a pattern JavaScript refuses.
  new RegExp(pattern, flags);
  const RE2 = (re2 ??= requiredModule<{ RE2JS: typeof RE2JS }>('re2js').RE2JS);
  let re: RE2JS;
  try {
    re = RE2.compile(RE2.translateRegExp(ecmaClasses(pattern)));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SyntaxError(`pattern /${pattern}/ cannot be matched in linear time (${reason})`);
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM)
    throw new SyntaxError(
      `pattern /${pattern}/ is too large to match in bounded time (${size} RE2 instructions; the limit is ${MAX_PATTERN_PROGRAM})`,
    );
  return new LinearRegExp(re, pattern, `/${pattern}/${flags}`);
}

/**
 * ajv's `code.regExp` option for linear-time patterns. `code` is the name ajv's standalone code
 * generation would call it by; schemas here are compiled in memory, where it is not used.
 */
export const linearRegExp: RegExpEngine = Object.assign(compileLinear, { code: 'linearRegExp' });

/**
 * Matches the `pattern`s of JSON Schemas from elsewhere in linear time (RE2) under the
 * interpreter too. The Node entry of the package calls it (RE2 is loaded at the first pattern
 * compiled); the browser entry's `registerLinearPatterns` (linear-regexp-bundled.ts) imports RE2
 * and hands it over first.
 */
export function registerLinearPatterns(): void {
  setLinearEngine(linearRegExp);
}
