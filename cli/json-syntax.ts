/**
 * Where a JSON text goes wrong: the offset of its first syntax error, and what was found there,
 * so that a turn file with a typo is reported at its line and column. `JSON.parse` says neither
 * reliably (V8's message has no position for an unexpected character).
 *
 * Why not a library (measured on Node 20.20, against this file's tests in
 * test/cli/cli-read-turn.test.ts):
 * - `jsonc-parser` 3.3.1 (`visit` with `disallowComments`, its first `onError`): it recurses, and
 *   `'['.repeat(100_000) + ']'.repeat(100_000)`, valid JSON this checker passes, throws "Maximum
 *   call stack size exceeded"; and it reports the start of the token that is wrong rather than
 *   the character: a raw line break in a string at the string's opening quote (this file: the
 *   break itself), `1.` at offset 0 (this file: 1, the `.`). Its ES build also does not load
 *   under Node (extensionless imports), so it would come in as CommonJS.
 * - `parse-json` 8.3.0 reads the position out of `JSON.parse`'s message, which V8 leaves out for
 *   an unexpected character (`[1,]` gives `Unexpected token ']', "[1,]" is not valid JSON`), and
 *   brings `@babel/code-frame`, `index-to-position` and `type-fest`.
 *
 * @module
 */

/** The first syntax error of a JSON text. */
export interface JsonSyntaxError {
  /** Its offset in the text, in UTF-16 code units. */
  offset: number;
  /** What is wrong there: `unexpected "o"`, `unexpected end of input`, ... */
  problem: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = '"\\/bfnrtu';

/**
 * The first syntax error in `text` as JSON (RFC 8259, as `JSON.parse` reads it), or undefined
 * when it is valid JSON. Iterative: any depth of nesting is checked without recursion.
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const stack: string[] = [];
  const at = (problem: string): JsonSyntaxError => ({ offset: i, problem });
  const unexpected = (): JsonSyntaxError =>
    at(i >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(text[i])}`);
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): JsonSyntaxError | undefined => {
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) return at('unterminated string');
      if (c === '"') return void i++;
      if (c < ' ') return at(`unescaped ${JSON.stringify(c)} in a string`);
      if (c === '\\') {
        const e = text[i + 1];
        if (e === undefined || !ESCAPES.includes(e)) return (i++, unexpected());
        if (e === 'u' && !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
          return ((i += 2), at('bad \\u escape'));
        i += e === 'u' ? 6 : 2;
      } else i++;
    }
  };

  let expect: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    space();
    if (expect === 'value') {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        space();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          expect = 'after';
        } else expect = c === '{' ? 'key' : 'value';
        continue;
      }
      if (c === '"') {
        const error = string();
        if (error !== undefined) return error;
      } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
        NUMBER.lastIndex = i;
        if (!NUMBER.test(text)) return unexpected();
        i = NUMBER.lastIndex;
      } else {
        const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (word === undefined) return unexpected();
        i += word.length;
      }
      expect = 'after';
    } else if (expect === 'key') {
      if (text[i] !== '"') return unexpected();
      const error = string();
      if (error !== undefined) return error;
      space();
      if (text[i] !== ':') return unexpected();
      i++;
      expect = 'value';
    } else {
      const top = stack.at(-1);
      if (top === undefined) return i < text.length ? unexpected() : undefined;
      const c = text[i];
      if (c === ',') {
        i++;
        expect = top === '{' ? 'key' : 'value';
      } else if (c === (top === '{' ? '}' : ']')) {
        i++;
        stack.pop();
      } else return unexpected();
    }
  }
}

/** `line L, column C` (both from 1) of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
