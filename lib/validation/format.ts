/**
 * How values, lists and paths are written in validation messages. Every function here returns one
 * line of bounded length whatever it is given: the model reads the message, and a 5 MB string or a
 * key holding a newline must not become a 5 MB or two-line error.
 *
 * @module
 */

/** Characters of a string shown in a message before it is cut with `…`. */
export const MAX_QUOTED = 40;

/** Values of an enum listed in a message before the list is cut with `…`. */
const MAX_LISTED = 20;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// JSON.stringify leaves U+2028 and U+2029 as they are, and some readers break lines on them.
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparators(text: string): string {
  return text.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/** The first `max` characters of `text`, never splitting a surrogate pair. */
function head(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** `text` as a JSON string, cut after `max` characters with `…` before the closing quote. */
export function quote(text: string, max = MAX_QUOTED): string {
  if (text.length <= max) return escapeSeparators(JSON.stringify(text));
  const json = JSON.stringify(head(text, max));
  return escapeSeparators(`${json.slice(0, -1)}…"`);
}

/**
 * A value as a message shows what was received: strings JSON-quoted, numbers and booleans as JSON,
 * `null`, and only the kind of an object or array (`object`, `array`), never its contents; a Date
 * (which only zod decoding produces) as its ISO text.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      // JSON.parse turns 1e400 into Infinity, which JSON cannot write back.
      return Number.isFinite(value) ? JSON.stringify(value) : 'an out-of-range number';
    case 'boolean':
      return String(value);
    case 'bigint':
      return String(value);
    case 'undefined':
      return 'nothing';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'array';
      if (value instanceof Date) {
        return Number.isNaN(value.getTime()) ? 'an invalid date' : value.toISOString();
      }
      return 'object';
    default:
      return typeof value;
  }
}

/**
 * A value as a message shows what was expected (an enum member, a const): as JSON, cut after
 * {@link MAX_QUOTED} characters.
 */
export function describeExpected(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) return describeValue(value);
  return escapeSeparators(json.length <= MAX_QUOTED ? json : `${head(json, MAX_QUOTED)}…`);
}

/** `["low", "high"]`: the members JSON-written, a space after each comma, long lists cut. */
export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map(describeExpected);
  if (values.length > MAX_LISTED) shown.push('…');
  return `[${shown.join(', ')}]`;
}

/** `a`, `a or b`, `a, b or c`. */
export function joinAlternatives(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** `1 item`, `2 items`; `plural` for nouns that do not just add an s. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/**
 * A path from its segments: numbers are array indexes (`[2]`), identifier-like keys are dotted
 * (`a.b`), any other key is bracketed and quoted (`a["we ird"]`, `["0"]`), long keys cut as
 * strings are. The root is "".
 */
export function formatPath(segments: readonly PropertyKey[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (typeof segment === 'symbol') path += `[${quote(String(segment))}]`;
    else if (IDENTIFIER.test(segment) && segment.length <= MAX_QUOTED)
      path += path === '' ? segment : `.${segment}`;
    else path += `[${quote(segment)}]`;
  }
  return path;
}
