/**
 * What the interpreter reports when a value fails: the fields of ajv's error objects that the
 * messages are made from, so one formatter phrases both and the model reads the same line.
 *
 * @module
 */
import type { ErrorObject } from 'ajv';

/** One failed keyword: ajv's ErrorObject with `verbose` data, as the interpreter fills it. */
export type SchemaFailure = ErrorObject;

/**
 * Where one validation's failures go. `composite` counts the schemas around the current one whose
 * failure is not final (a union's branches, `not`, an `if` condition, `contains` items, property
 * names): there every failure is kept, as ajv keeps them; outside, ajv's function returns with
 * the one failure it met, dropping what the finished composites left.
 */
export interface Sink {
  errors: SchemaFailure[];
  composite: number;
}

/** Records the failure of `keyword` at `instancePath`, as ajv reports a keyword's error. */
export function fail(
  sink: Sink,
  keyword: string,
  instancePath: string,
  schemaPath: string,
  params: { [key: string]: unknown },
  data: unknown,
): false {
  if (sink.composite === 0) sink.errors.length = 0;
  return failAfter(sink, keyword, instancePath, schemaPath, params, data);
}

/**
 * Records the failure of a keyword that reports after the failures inside it (`anyOf`, `oneOf`,
 * `if`, `propertyNames`): those are kept, and this comes last.
 */
export function failAfter(
  sink: Sink,
  keyword: string,
  instancePath: string,
  schemaPath: string,
  params: { [key: string]: unknown },
  data: unknown,
): false {
  sink.errors.push({ keyword, instancePath, schemaPath, params, data });
  return false;
}

/** `/a/b`: the JSON Pointer `path` extended by `key`, escaped as RFC 6901 wants. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}/${key}`;
  return `${path}/${key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key}`;
}
