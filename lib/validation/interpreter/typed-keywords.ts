/**
 * The keywords that apply to one data type (numbers, strings, arrays; objects in
 * object-keywords.ts), each group in ajv's order; a group runs only on data of its type.
 *
 * @module
 */
import { childPath, fail, type Sink } from './failure.js';
import { lastDuplicate } from './equal.js';
import { formatOf } from './formats.js';
import { dataPath, isType, SchemaProblem, sequence, type Check } from './check.js';
import type { Compiler } from './interpreter.js';
import { patternOf } from './pattern.js';
import { count, number, type SchemaObject } from './keyword-values.js';

/** Code points, as ajv counts a string's length. */
function length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const BOUNDS: [string, string, (data: number, limit: number) => boolean][] = [
  ['maximum', '<=', (d, l) => d <= l],
  ['minimum', '>=', (d, l) => d >= l],
  ['exclusiveMaximum', '<', (d, l) => d < l],
  ['exclusiveMinimum', '>', (d, l) => d > l],
];

/** A `format` check for data of `type`, or null when the format does not apply to it. */
function format(schema: SchemaObject, at: string, type: 'string' | 'number'): Check | null {
  if (schema.format === undefined) return null;
  if (typeof schema.format !== 'string')
    throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/format must be string`);
  const name = schema.format;
  const known = formatOf(name);
  const check = known?.check;
  if (known === undefined || check === undefined || known.type !== type) return null;
  return (data, path, sink) =>
    check(data as never)
      ? true
      : fail(sink, 'format', path, `${at}/format`, { format: name }, data);
}

/** maximum, minimum, exclusiveMaximum, exclusiveMinimum, multipleOf, format. */
export function numberGroup(schema: SchemaObject, at: string): Check | null {
  const steps: Check[] = [];
  for (const [keyword, comparison, holds] of BOUNDS) {
    if (schema[keyword] === undefined) continue;
    const limit = number(schema, keyword, at);
    steps.push((data, path, sink) =>
      holds(data as number, limit)
        ? true
        : fail(sink, keyword, path, `${at}/${keyword}`, { comparison, limit }, data),
    );
  }
  if (schema.multipleOf !== undefined) {
    const multipleOf = number(schema, 'multipleOf', at);
    if (!(multipleOf > 0))
      throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/multipleOf must be > 0`);
    steps.push((data, path, sink) => {
      const ratio = (data as number) / multipleOf;
      return ratio === parseInt(String(ratio))
        ? true
        : fail(sink, 'multipleOf', path, `${at}/multipleOf`, { multipleOf }, data);
    });
  }
  const formatCheck = format(schema, at, 'number');
  if (formatCheck !== null) steps.push(formatCheck);
  return steps.length === 0 && schema.format === undefined ? null : sequence(steps);
}

/** maxLength, minLength, pattern, format. */
export function stringGroup(schema: SchemaObject, at: string, c: Compiler): Check | null {
  const steps: Check[] = [];
  if (schema.maxLength !== undefined) {
    const limit = count(schema, 'maxLength', at);
    steps.push((data, path, sink) =>
      length(data as string) <= limit
        ? true
        : fail(sink, 'maxLength', path, `${at}/maxLength`, { limit }, data),
    );
  }
  if (schema.minLength !== undefined) {
    const limit = count(schema, 'minLength', at);
    steps.push((data, path, sink) =>
      length(data as string) >= limit
        ? true
        : fail(sink, 'minLength', path, `${at}/minLength`, { limit }, data),
    );
  }
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== 'string')
      throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/pattern must be string`);
    const pattern = schema.pattern;
    const regExp = patternOf(pattern, c.patterns);
    steps.push((data, path, sink) =>
      regExp.test(data as string)
        ? true
        : fail(sink, 'pattern', path, `${at}/pattern`, { pattern }, data),
    );
  }
  const formatCheck = format(schema, at, 'string');
  if (formatCheck !== null) steps.push(formatCheck);
  return steps.length === 0 && schema.format === undefined ? null : sequence(steps);
}

/** Each item from `from` on checked by `item`, stopping at the first that fails. */
function eachItem(item: Check, from: number): Check {
  return (data, path, sink) => {
    const items = data as unknown[];
    for (let i = from; i < items.length; i++)
      if (!item(items[i], childPath(path, i), sink)) return false;
    return true;
  };
}

/** maxItems, minItems, prefixItems or tuple items, items, contains, uniqueItems. */
export function arrayGroup(schema: SchemaObject, at: string, c: Compiler): Check | null {
  const steps: Check[] = [];
  for (const [keyword, holds] of [
    ['maxItems', (n: number, l: number) => n <= l],
    ['minItems', (n: number, l: number) => n >= l],
  ] as const) {
    if (schema[keyword] === undefined) continue;
    const limit = count(schema, keyword, at);
    steps.push((data, path, sink) =>
      holds((data as unknown[]).length, limit)
        ? true
        : fail(sink, keyword, path, `${at}/${keyword}`, { limit }, data),
    );
  }
  // A tuple: prefixItems (2020-12) or an array under items (draft-07), then what follows it.
  const tupleKeyword =
    schema.prefixItems !== undefined
      ? 'prefixItems'
      : Array.isArray(schema.items)
        ? 'items'
        : undefined;
  const rest = tupleKeyword === 'prefixItems' ? 'items' : 'additionalItems';
  if (tupleKeyword !== undefined) {
    const tuple = c.list(schema, tupleKeyword, at);
    const len = tuple.length;
    const restSchema = schema[rest];
    const restCheck: Check | undefined =
      restSchema === undefined || c.alwaysValid(restSchema)
        ? undefined
        : restSchema === false
          ? (data, path, sink) =>
              (data as unknown[]).length <= len
                ? true
                : fail(sink, rest, path, `${at}/${rest}`, { limit: len }, data)
          : eachItem(c.schema(restSchema, `${at}/${rest}`), len);
    const tupleCheck: Check = (data, path, sink) => {
      const items = data as unknown[];
      for (let i = 0; i < len && i < items.length; i++)
        if (!tuple[i]!(items[i], childPath(path, i), sink)) return false;
      return true;
    };
    // draft-07's additionalItems comes before items; 2020-12's prefixItems before items.
    if (rest === 'additionalItems' && restCheck !== undefined) steps.push(restCheck, tupleCheck);
    else steps.push(tupleCheck, ...(restCheck === undefined ? [] : [restCheck]));
  } else if (schema.items !== undefined && !c.alwaysValid(schema.items)) {
    steps.push(eachItem(c.schema(schema.items, `${at}/items`), 0));
  }
  const contains = containsCheck(schema, at, c);
  if (contains !== null) steps.push(contains);
  if (schema.uniqueItems === true) steps.push(uniqueCheck(schema, at));
  return steps.length === 0 ? null : sequence(steps);
}

function containsCheck(schema: SchemaObject, at: string, c: Compiler): Check | null {
  if (schema.contains === undefined) return null;
  const min = schema.minContains === undefined ? 1 : count(schema, 'minContains', at);
  const max = schema.maxContains === undefined ? undefined : count(schema, 'maxContains', at);
  if (max === undefined && min === 0) return null;
  const params = max === undefined ? { minContains: min } : { minContains: min, maxContains: max };
  const item = c.schema(schema.contains, `${at}/contains`);
  return (data, path, sink) => {
    const items = data as unknown[];
    const before = sink.errors.length;
    let valid = min === 0;
    sink.composite++;
    if (min !== 0 || items.length > 0) {
      let found = 0;
      for (let i = 0; i < items.length; i++) {
        if (!item(items[i], childPath(path, i), sink)) continue;
        found++;
        if (max === undefined) {
          if (found >= min) {
            valid = true;
            break;
          }
        } else if (found > max) {
          valid = false;
          break;
        } else if (found >= min) {
          valid = true;
        }
      }
    }
    sink.composite--;
    if (valid) {
      sink.errors.length = before;
      return true;
    }
    return fail(sink, 'contains', path, `${at}/contains`, params, data);
  };
}

function uniqueCheck(schema: SchemaObject, at: string): Check {
  const items = schema.items;
  const itemTypes: string[] =
    typeof items === 'object' && items !== null && !Array.isArray(items)
      ? [(items as SchemaObject).type].flat().filter((t): t is string => typeof t === 'string')
      : [];
  const scalar = itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array');
  const report = (sink: Sink, path: string, data: unknown, i: number, j: number) =>
    fail(sink, 'uniqueItems', path, `${at}/uniqueItems`, { i, j }, data);
  // ajv's two ways (a map for scalars, pairs otherwise), so the pair reported is the one ajv
  // reports; pairs are found by hashing, in linear time (see lastDuplicate).
  if (scalar) {
    return (data, path, sink) => {
      const list = data as unknown[];
      const indices = new Map<unknown, number>();
      for (let i = list.length; i--;) {
        let item = list[i];
        if (!itemTypes.some((t) => isType(t, item))) continue;
        if (itemTypes.length > 1 && typeof item === 'string') item = `${item}_`;
        const key = typeof item === 'string' ? item : String(item);
        const j = indices.get(key);
        if (j !== undefined) return report(sink, path, data, i, j);
        indices.set(key, i);
      }
      return true;
    };
  }
  return (data, path, sink) => {
    const pair = lastDuplicate(data as unknown[]);
    return pair === undefined ? true : report(sink, path, data, pair[0], pair[1]);
  };
}
