/**
 * Ajv's errors as one ValidationError phrased for the model.
 *
 * With `allErrors` off ajv stops at the first failing keyword, except inside `anyOf` and `oneOf`,
 * where each branch records why it failed before the union's own error is written last. The list
 * is therefore one failure, or the failures of a union's branches (and of unions nested in them).
 * Which error belongs to which branch cannot be read back reliably (a `$ref` rewrites the schema
 * path), so the branch failures are weighed as one flat list: see {@link mostRelevant}.
 *
 * Most of the file is one phrase per ajv keyword, which is why it runs past 200 lines.
 *
 * @module
 */
import type { ErrorObject } from 'ajv';
import { ValidationError, oneLine } from '../errors.js';
import {
  count,
  describeExpected,
  describeValue,
  formatPath,
  joinAlternatives,
  listValues,
  quote,
} from './format.js';
import { type Failure, mostRelevant, withArticle } from './union.js';

/** Characters of a pattern shown before it is cut: the model needs the whole of a usual one. */
const MAX_PATTERN = 200;

const UNIONS = new Set(['anyOf', 'oneOf']);
// Errors that only say "a nested check failed"; the nested errors before them say which.
const WRAPPERS = new Set(['anyOf', 'oneOf', 'propertyNames', 'if']);

/** A failure and where in the schema it came from. */
interface AjvFailure extends Failure<string> {
  schemaPath: string;
}

/**
 * The ValidationError for ajv's `errors` after validating `data`, at a path like `a.b[2]` read
 * from `data`.
 */
export function ajvValidationError(
  errors: readonly ErrorObject[] | null | undefined,
  data: unknown,
): ValidationError {
  const last = errors?.[errors.length - 1];
  if (errors === null || errors === undefined || last === undefined) {
    return new ValidationError('', 'does not match the schema');
  }
  const unionSpots = new Set<string>();
  for (const error of errors) if (UNIONS.has(error.keyword)) unionSpots.add(error.instancePath);
  const failures: AjvFailure[] = [];
  for (const error of errors) {
    if (isAmbiguous(error)) {
      // A oneOf that matched twice keeps the errors of its other branches; they are not why.
      const inside = `${error.schemaPath}/`;
      while (failures.length > 0 && failures[failures.length - 1]!.schemaPath.startsWith(inside))
        failures.pop();
    } else if (WRAPPERS.has(error.keyword)) {
      continue;
    }
    failures.push(failureOf(error, unionSpots.has(error.instancePath)));
  }
  if (isAmbiguous(last) || failures.length === 0) {
    return new ValidationError(pathOf(last.instancePath, data), describe(last));
  }
  const chosen = mostRelevant(withoutShadowedTypes(failures));
  return new ValidationError(pathOf(chosen.where, data), chosen.detail);
}

function isAmbiguous(error: ErrorObject): boolean {
  return error.keyword === 'oneOf' && Array.isArray(error.params.passingSchemas);
}

function failureOf(error: ErrorObject, atUnion: boolean): AjvFailure {
  const where = error.instancePath;
  const depth = where === '' ? 0 : where.split('/').length - 1;
  const named = error.propertyName !== undefined;
  const failure: AjvFailure = {
    where,
    key: where,
    depth,
    detail: named ? `invalid property name: ${describe(error)}` : describe(error),
    got: describeValue(named ? error.propertyName : error.data),
    schemaPath: error.schemaPath,
  };
  if (named) return failure;
  if (error.keyword === 'type') {
    failure.types = typesOf(error.params.type);
    failure.wrongShape = atUnion;
  } else if (error.keyword === 'enum') {
    failure.values = error.params.allowedValues as unknown[];
  } else if (error.keyword === 'const') {
    failure.values = [error.params.allowedValue];
  }
  return failure;
}

/**
 * Drops a type failure beside a const or enum failure of the same schema (`{"type": "string",
 * "enum": [...]}` reports both): the values say all the type would.
 */
function withoutShadowedTypes(failures: AjvFailure[]): AjvFailure[] {
  const parent = (f: AjvFailure): string => f.schemaPath.slice(0, f.schemaPath.lastIndexOf('/'));
  const valued = new Set(failures.filter((f) => f.values !== undefined).map(parent));
  if (valued.size === 0) return failures;
  return failures.filter((f) => f.types === undefined || !valued.has(parent(f)));
}

function typesOf(type: unknown): string[] {
  if (Array.isArray(type)) return type.map(String);
  return String(type).split(',');
}

/** The phrase for a single keyword's failure. */
function describe(error: ErrorObject): string {
  const p = error.params as { [key: string]: unknown };
  const value: unknown = error.propertyName ?? error.data;
  const got = `, got ${describeValue(value)}`;
  switch (error.keyword) {
    case 'type':
      return `expected ${joinAlternatives(typesOf(p.type))}${got}`;
    case 'required':
      return `missing required property ${quote(String(p.missingProperty))}`;
    case 'additionalProperties':
      return `unexpected property ${quote(String(p.additionalProperty))}`;
    case 'unevaluatedProperties':
      return `unexpected property ${quote(String(p.unevaluatedProperty))}`;
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      if (allowed.length === 1) return `expected ${describeExpected(allowed[0])}${got}`;
      return `expected one of ${listValues(allowed)}${got}`;
    }
    case 'const':
      return `expected ${describeExpected(p.allowedValue)}${got}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `expected a number ${String(p.comparison)} ${JSON.stringify(p.limit)}${got}`;
    case 'multipleOf':
      return `expected a multiple of ${JSON.stringify(p.multipleOf)}${got}`;
    case 'minLength':
      return `expected at least ${count(Number(p.limit), 'character')}, got ${codePoints(value)}`;
    case 'maxLength':
      return `expected at most ${count(Number(p.limit), 'character')}, got ${codePoints(value)}`;
    case 'pattern':
      return `expected a string matching pattern ${quote(String(p.pattern), MAX_PATTERN)}${got}`;
    case 'format':
      return `expected ${withArticle(String(p.format))} string${got}`;
    case 'minItems':
      return `expected at least ${count(Number(p.limit), 'item')}, got ${lengthOf(value)}`;
    case 'maxItems':
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems':
      return `expected at most ${count(Number(p.limit), 'item')}, got ${lengthOf(value)}`;
    case 'minProperties':
      return `expected at least ${count(Number(p.limit), 'property', 'properties')}, got ${keysOf(value)}`;
    case 'maxProperties':
      return `expected at most ${count(Number(p.limit), 'property', 'properties')}, got ${keysOf(value)}`;
    case 'uniqueItems': {
      const [a, b] = [Number(p.i), Number(p.j)].sort((x, y) => x - y);
      return `expected unique items, got duplicates at [${a}] and [${b}]`;
    }
    case 'contains':
      return `expected ${containsBounds(p.minContains, p.maxContains)} matching the allowed shape`;
    case 'dependentRequired':
    case 'dependencies':
      return `missing property ${quote(String(p.missingProperty))}, required when ${quote(String(p.property))} is present`;
    case 'not':
      return `got ${describeValue(value)}, which is not allowed here`;
    case 'false schema':
      return 'no value is allowed here';
    case 'oneOf':
      return Array.isArray(p.passingSchemas)
        ? 'matches more than one of the allowed shapes'
        : 'does not match any allowed shape';
    case 'anyOf':
      return 'does not match any allowed shape';
    case 'propertyNames':
      return `invalid property name ${quote(String(p.propertyName))}`;
    case 'if':
      return `does not match the "${String(p.failingKeyword)}" shape its condition selects`;
    default:
      return error.message === undefined ? `fails "${error.keyword}"` : oneLine(error.message);
  }
}

function containsBounds(min: unknown, max: unknown): string {
  const low = typeof min === 'number' ? min : 1;
  if (typeof max !== 'number') return `at least ${count(low, 'item')}`;
  if (low === 0) return `at most ${count(max, 'item')}`;
  if (low === max) return `exactly ${count(low, 'item')}`;
  return `${low} to ${max} items`;
}

function codePoints(value: unknown): number {
  if (typeof value !== 'string') return 0;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // A surrogate pair is one character, as ajv counts it.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function lengthOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

function keysOf(value: unknown): number {
  return typeof value === 'object' && value !== null ? Object.keys(value).length : 0;
}

/** `/a/b/2` as `a.b[2]`: a segment is an index when the value it steps into is an array. */
function pathOf(pointer: string, data: unknown): string {
  if (pointer === '') return '';
  const segments: PropertyKey[] = [];
  let node = data;
  for (const escaped of pointer.slice(1).split('/')) {
    const key = escaped.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const index = Number(key);
      segments.push(index);
      node = node[index];
    } else {
      segments.push(key);
      node =
        typeof node === 'object' && node !== null && Object.hasOwn(node, key)
          ? (node as { [key: string]: unknown })[key]
          : undefined;
    }
  }
  return formatPath(segments);
}
