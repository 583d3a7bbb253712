/**
 * Raw argument text to a plain object, safely: the length and nesting limits are checked before
 * JSON.parse runs, so hostile text costs one linear scan and never recursion, and an own
 * `__proto__` key is refused wherever it appears.
 *
 * @module
 */
import { ValidationError } from '../errors.js';
import { describeValue, formatPath } from './format.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// JSON whitespace only: the model writing nothing (or a newline) means no arguments.
const BLANK = /^[ \t\n\r]*$/;
// `__proto__` can only become a key if the text spells it out or escapes one of its letters
// (`\u005f`, `\u0070`, ...); everything else skips the walk over the parsed value.
const PROTO_ESCAPE = /\\u00[5-7][0-9a-f]/i;
// The unexpected character JSON.parse quotes may be a control character or a line break.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u2028\u2029]/g;

/**
 * Parses `raw` into the arguments object. Throws a ValidationError, with the checks in this order:
 * not a string, longer than `maxLength` characters, nested deeper than `maxDepth` arrays and objects, not JSON,
 * a root that is not an object, an own `__proto__` key anywhere. Blank text is a fresh `{}`.
 */
export function parseArgumentsText(
  raw: string,
  maxLength: number,
  maxDepth: number,
): { [key: string]: unknown } {
  // The type says string, but arguments cross process boundaries and untyped callers.
  if (typeof raw !== 'string') {
    throw new ValidationError('', `expected JSON text, got ${describeValue(raw)}`);
  }
  if (raw.length > maxLength) {
    throw new ValidationError(
      '',
      `arguments are ${raw.length} characters long; the limit is ${maxLength}`,
    );
  }
  if (raw.length === 0 || (isJsonSpace(raw.charCodeAt(0)) && BLANK.test(raw))) return {};
  // Depth d needs at least d opening characters, so short text cannot be too deep.
  if (raw.length > maxDepth && nestsDeeperThan(raw, maxDepth)) {
    throw new ValidationError('', `arguments are nested deeper than ${maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new ValidationError('', `not valid JSON: ${jsonProblem(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('', `expected object, got ${describeValue(value)}`);
  }
  if (raw.includes('__proto__') || (raw.includes('\\u') && PROTO_ESCAPE.test(raw)))
    refuseProtoKeys(value);
  return value as { [key: string]: unknown };
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Whether `[` and `{` outside strings ever nest deeper than `maxDepth`; one pass, no recursion. */
export function nestsDeeperThan(raw: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0, n = raw.length; i < n; i++) {
    const code = raw.charCodeAt(i);
    if (code === QUOTE) {
      // Arguments are mostly string content: jump over it with indexOf instead of a char loop.
      let end = raw.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(raw, end)) end = raw.indexOf('"', end + 1);
      // Unterminated: nothing after it nests, and JSON.parse reports the string.
      if (end === -1) return false;
      i = end;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** Whether the quote at `at` follows an odd run of backslashes. */
function isEscaped(raw: string, at: number): boolean {
  let k = at - 1;
  while (raw.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

/**
 * JSON.parse's message on one line, without what differs between engines and versions: the quoted
 * source V8 appends (which may be long or span lines), "in JSON", and the line and column.
 */
function jsonProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const problem = message
    .replace(/,? (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
    .replace(/ in JSON at position/, ' at position')
    .replace(/ \(line \d+ column \d+\)/, '')
    .replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const short = problem.length > 120 ? `${problem.slice(0, 120)}…` : problem;
  return short.charAt(0).toLowerCase() + short.slice(1);
}

/**
 * Throws for the first own `__proto__` key in `root`. JSON.parse makes it an ordinary own
 * property, harmless by itself, but `Object.assign` or a hand-written merge into another object
 * would call the prototype setter with model-chosen data; refusing it here keeps every later copy
 * safe. `constructor` and `prototype` keys are plain data and pass.
 */
function refuseProtoKeys(root: object): void {
  // Breadth first, so the shallowest offending key is the one reported; each node keeps its
  // parent's index and its key, and a path is only built for the error.
  const queue: { value: object; parent: number; key: PropertyKey }[] = [
    { value: root, parent: -1, key: '' },
  ];
  for (let i = 0; i < queue.length; i++) {
    const { value } = queue[i]!;
    if (Array.isArray(value)) {
      value.forEach((element: unknown, index) => {
        if (typeof element === 'object' && element !== null)
          queue.push({ value: element, parent: i, key: index });
      });
    } else if (Object.hasOwn(value, '__proto__')) {
      const path: PropertyKey[] = [];
      for (let at = i; at > 0; at = queue[at]!.parent) path.unshift(queue[at]!.key);
      throw new ValidationError(formatPath(path), 'property "__proto__" is not allowed');
    } else {
      for (const key of Object.keys(value)) {
        const element: unknown = (value as { [key: string]: unknown })[key];
        if (typeof element === 'object' && element !== null)
          queue.push({ value: element, parent: i, key });
      }
    }
  }
}

/**
 * Deepest nesting of arrays and objects in a JSON Schema (the root counting as 1) that is
 * compiled or served. Walking a schema (compiling it, writing it as JSON, listing it) recurses
 * once per level, so a schema from elsewhere thousands of levels deep would overflow the stack;
 * real schemas nest a few dozen levels.
 */
export const MAX_SCHEMA_DEPTH = 512;

/**
 * Whether arrays and objects in `value` ever nest deeper than `maxDepth` levels (the root
 * counting as 1); one pass with a stack of its own, no recursion, whatever the depth. Each object
 * is walked once: one met again (a cycle, which is not JSON and is refused as such where the
 * value is written) is not walked twice.
 */
export function valueDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const seen = new Set<object>([value]);
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (typeof child === 'object' && child !== null && !seen.has(child)) {
        seen.add(child);
        stack.push([child, depth + 1]);
      }
  }
  return false;
}

/**
 * A one-line reason `schema` cannot be walked safely, or undefined: nested deeper than
 * {@link MAX_SCHEMA_DEPTH} levels.
 */
export function schemaDepthProblem(schema: unknown): string | undefined {
  return valueDeeperThan(schema, MAX_SCHEMA_DEPTH)
    ? `the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
    : undefined;
}

/**
 * About how many characters `value` takes as JSON text: strings and keys by their length, other
 * values by a few characters each; one pass with a stack of its own, no recursion. Counting stops
 * past 64 Mi (a value that large, or one holding itself, is not arguments).
 */
export function jsonSize(value: unknown): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size < 0x4000000) {
    const node = stack.pop();
    if (typeof node === 'string') size += node.length + 2;
    else if (typeof node !== 'object' || node === null) size += 4;
    else if (Array.isArray(node)) {
      size += 2;
      for (const item of node) stack.push(item);
    } else {
      size += 2;
      for (const [key, item] of Object.entries(node)) {
        size += key.length + 3;
        stack.push(item);
      }
    }
  }
  return size;
}

/** Keywords neither engine checks: a schema using one is refused, never checked in part. */
const UNSUPPORTED = ['$dynamicRef', '$recursiveRef'] as const;

/** Keywords whose values are data, not schemas: what they hold is not looked into. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * Why `schema` is refused by both engines alike, or undefined: a keyword they do not support
 * (`$dynamicRef`, `$recursiveRef`, whose dynamic scope neither follows, so a schema using them
 * would accept what it should not), or an `enum` with no value (which accepts nothing). One pass
 * with a stack of its own, each object once; run after the depth check.
 */
export function unsupportedProblem(schema: unknown): string | undefined {
  const stack: unknown[] = [schema];
  // A schema holding itself is refused later, as not JSON: it is walked once here.
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    for (const keyword of UNSUPPORTED)
      if (Object.hasOwn(node, keyword))
        return `${keyword} is not supported: a schema that uses it is refused rather than checked in part`;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.enum) && record.enum.length === 0)
      return 'enum must have at least one value';
    for (const [key, value] of Object.entries(record))
      if (!DATA_KEYWORDS.has(key)) stack.push(value);
  }
  return undefined;
}
