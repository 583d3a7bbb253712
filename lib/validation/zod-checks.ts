/**
 * The phrases for zod's built-in checks: sizes and bounds (`too_small`, `too_big`) and string
 * formats (`invalid_format` in v4, `invalid_string` in v3), in the words the schema checks use.
 *
 * @module
 */
import { oneLine } from '../errors.js';
import { count, quote } from './format.js';
import { withArticle } from './union.js';

/** The fields of a zod issue read here; v3 and v4 issues both have them. */
export interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  [field: string]: unknown;
}

/** A value looked up in the parsed input, when it could be. */
export interface Found {
  known: boolean;
  value: unknown;
}

/** Characters of a zod regex shown before it is cut. */
const MAX_PATTERN = 200;

/** Whether `value` has the fields of a zod issue of either version. */
export function isIssue(value: unknown): value is Issue {
  if (typeof value !== 'object' || value === null) return false;
  const { code, path } = value as { code?: unknown; path?: unknown };
  return typeof code === 'string' && Array.isArray(path);
}

const UNITS: { [origin: string]: [string, string?] } = {
  string: ['character'],
  array: ['item'],
  set: ['item'],
  map: ['entry', 'entries'],
  file: ['byte'],
};

/** Whether a size issue counts things (characters, items) rather than bounding a number or date. */
export function isSized(issue: Issue): boolean {
  return Object.hasOwn(UNITS, String(issue.origin ?? issue.type));
}

/**
 * `expected at least 3 characters, got 1` or `expected a number <= 5`: the phrase for a
 * `too_small` or `too_big` issue; a count is followed by what was received when it is known.
 */
export function sizeDetail(issue: Issue, found: Found): string {
  const small = issue.code === 'too_small';
  const origin = String(issue.origin ?? issue.type);
  const limit = small ? issue.minimum : issue.maximum;
  const inclusive = issue.inclusive !== false;
  const unit = Object.hasOwn(UNITS, origin) ? UNITS[origin] : undefined;
  if (unit !== undefined) {
    const bound =
      issue.exact === true
        ? 'exactly'
        : small
          ? inclusive
            ? 'at least'
            : 'more than'
          : inclusive
            ? 'at most'
            : 'fewer than';
    const size = found.known ? sizeOf(found.value) : undefined;
    return `expected ${bound} ${count(Number(limit), ...unit)}${size === undefined ? '' : `, got ${size}`}`;
  }
  const comparison = small ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  if (origin === 'date') return `expected a date ${comparison} ${dateText(limit)}`;
  return `expected a number ${comparison} ${String(limit)}`;
}

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (value instanceof Set || value instanceof Map) return value.size;
  return undefined;
}

function dateText(limit: unknown): string {
  const date = limit instanceof Date ? limit : new Date(Number(limit));
  return Number.isNaN(date.getTime()) ? String(limit) : date.toISOString();
}

/** What a string format issue expected: `a date-time string`, `a string starting with "ab"`. */
export function formatDetail(issue: Issue): string {
  const validation = issue.validation;
  if (typeof validation === 'object' && validation !== null) {
    // v3 names these checks by an object.
    const v = validation as { includes?: string; startsWith?: string; endsWith?: string };
    if (v.startsWith !== undefined) return `a string starting with ${quote(v.startsWith)}`;
    if (v.endsWith !== undefined) return `a string ending with ${quote(v.endsWith)}`;
    if (v.includes !== undefined) return `a string containing ${quote(v.includes)}`;
  }
  const format = String(issue.format ?? validation);
  switch (format) {
    case 'regex':
      return typeof issue.pattern === 'string'
        ? `a string matching pattern ${cut(oneLine(issue.pattern))}`
        : 'a string matching the required pattern';
    case 'starts_with':
      return `a string starting with ${quote(String(issue.prefix))}`;
    case 'ends_with':
      return `a string ending with ${quote(String(issue.suffix))}`;
    case 'includes':
      return `a string containing ${quote(String(issue.includes))}`;
    case 'lowercase':
    case 'uppercase':
      return `${withArticle(format)} string`;
    case 'datetime':
      return 'a date-time string';
    default:
      return `${withArticle(format)} string`;
  }
}

function cut(text: string): string {
  return text.length <= MAX_PATTERN ? text : `${text.slice(0, MAX_PATTERN)}…`;
}
