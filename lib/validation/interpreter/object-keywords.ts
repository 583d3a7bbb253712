/**
 * The keywords that apply to objects, in ajv's order; the group runs only on objects.
 *
 * @module
 */
import { childPath, fail, failAfter } from './failure.js';
import { dataPath, SchemaProblem, sequence, type Check } from './check.js';
import type { Compiler } from './interpreter.js';
import { patternOf, type PatternTest } from './pattern.js';
import { count, map, segment, type SchemaObject } from './keyword-values.js';

/**
 * maxProperties, minProperties, required, propertyNames, additionalProperties, dependencies,
 * properties, patternProperties, dependentRequired, dependentSchemas.
 */
export function objectGroup(schema: SchemaObject, at: string, c: Compiler): Check | null {
  const steps: Check[] = sizeChecks(schema, at);
  const required = requiredCheck(schema, at);
  if (required !== null) steps.push(required);
  const names = propertyNamesCheck(schema, at, c);
  if (names !== null) steps.push(names);
  const additional = additionalCheck(schema, at, c);
  if (additional !== null) steps.push(additional);
  if (schema.dependencies !== undefined)
    steps.push(...dependencyChecks(schema, 'dependencies', at, c));
  const properties = propertiesCheck(schema, at, c);
  if (properties !== null) steps.push(properties);
  const patterns = patternPropertiesCheck(schema, at, c);
  if (patterns !== null) steps.push(patterns);
  if (schema.dependentRequired !== undefined)
    steps.push(...dependencyChecks(schema, 'dependentRequired', at, c));
  if (schema.dependentSchemas !== undefined)
    steps.push(...dependencyChecks(schema, 'dependentSchemas', at, c));
  refuseUnevaluated(schema, c);
  return steps.length === 0 ? null : sequence(steps);
}

/** maxProperties, minProperties. */
function sizeChecks(schema: SchemaObject, at: string): Check[] {
  const steps: Check[] = [];
  for (const [keyword, holds] of [
    ['maxProperties', (n: number, l: number) => n <= l],
    ['minProperties', (n: number, l: number) => n >= l],
  ] as const) {
    if (schema[keyword] === undefined) continue;
    const limit = count(schema, keyword, at);
    steps.push((data, path, sink) =>
      holds(Object.keys(data as object).length, limit)
        ? true
        : fail(sink, keyword, path, `${at}/${keyword}`, { limit }, data),
    );
  }
  return steps;
}

function requiredCheck(schema: SchemaObject, at: string): Check | null {
  if (schema.required === undefined) return null;
  const required = schema.required;
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))
    throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/required must be array`);
  if (required.length === 0) return null;
  return (data, path, sink) => {
    for (const missingProperty of required as string[])
      if (!has(data, missingProperty))
        return fail(sink, 'required', path, `${at}/required`, { missingProperty }, data);
    return true;
  };
}

function propertyNamesCheck(schema: SchemaObject, at: string, c: Compiler): Check | null {
  if (schema.propertyNames === undefined || c.alwaysValid(schema.propertyNames)) return null;
  const name = c.schema(schema.propertyNames, `${at}/propertyNames`);
  return (data, path, sink) => {
    for (const propertyName of Object.keys(data as object)) {
      const before = sink.errors.length;
      sink.composite++;
      const valid = name(propertyName, path, sink);
      sink.composite--;
      if (valid) continue;
      for (let k = before; k < sink.errors.length; k++) sink.errors[k]!.propertyName = propertyName;
      return failAfter(sink, 'propertyNames', path, `${at}/propertyNames`, { propertyName }, data);
    }
    return true;
  };
}

function propertiesCheck(schema: SchemaObject, at: string, c: Compiler): Check | null {
  if (schema.properties === undefined) return null;
  const properties = map(schema, 'properties', at);
  const names: string[] = [];
  const segments: string[] = [];
  const checks: Check[] = [];
  for (const [name, sub] of Object.entries(properties)) {
    if (name === '__proto__' || c.alwaysValid(sub)) continue;
    names.push(name);
    segments.push(childPath('', name));
    checks.push(c.schema(sub, `${at}/properties/${segment(name)}`));
  }
  if (checks.length === 0) return null;
  return (data, path, sink) => {
    const object = data as SchemaObject;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const value = object[name];
      if (value === undefined || !HAS_OWN.call(object, name)) continue;
      if (!checks[i]!(value, path + segments[i]!, sink)) return false;
    }
    return true;
  };
}

function patternPropertiesCheck(schema: SchemaObject, at: string, c: Compiler): Check | null {
  if (schema.patternProperties === undefined) return null;
  const patterns = map(schema, 'patternProperties', at);
  const checks: [PatternTest, Check][] = [];
  for (const [pattern, sub] of Object.entries(patterns)) {
    if (pattern === '__proto__' || c.alwaysValid(sub)) continue;
    checks.push([
      patternOf(pattern, c.patterns),
      c.schema(sub, `${at}/patternProperties/${segment(pattern)}`),
    ]);
  }
  if (checks.length === 0) return null;
  return (data, path, sink) => {
    for (const [regExp, check] of checks)
      for (const key of Object.keys(data as object))
        if (regExp.test(key) && !check((data as SchemaObject)[key], childPath(path, key), sink))
          return false;
    return true;
  };
}

/** unevaluatedProperties and unevaluatedItems: refused, rather than checked in part. */
function refuseUnevaluated(schema: SchemaObject, c: Compiler): void {
  if (schema.unevaluatedProperties !== undefined && !c.alwaysValid(schema.unevaluatedProperties))
    throw new SchemaProblem(
      'unevaluatedProperties is not supported: a schema that uses it is refused rather than checked in part',
    );
  if (schema.unevaluatedItems !== undefined && !c.alwaysValid(schema.unevaluatedItems))
    throw new SchemaProblem(
      'unevaluatedItems is not supported: a schema that uses it is refused rather than checked in part',
    );
}

// hasOwnProperty through call is inlined by V8's optimiser where Object.hasOwn is not (Node 20).
const HAS_OWN = Object.prototype.hasOwnProperty;

/** Whether `data` has `key` as an own property with a value, as ajv's ownProperties reads it. */
function has(data: unknown, key: string): boolean {
  return (data as SchemaObject)[key] !== undefined && HAS_OWN.call(data, key);
}

function additionalCheck(schema: SchemaObject, at: string, c: Compiler): Check | null {
  const extra = schema.additionalProperties;
  if (extra === undefined || c.alwaysValid(extra)) return null;
  const declared = new Set(
    schema.properties === undefined
      ? []
      : Object.keys(map(schema, 'properties', at)).filter((k) => k !== '__proto__'),
  );
  const patterns =
    schema.patternProperties === undefined
      ? []
      : Object.keys(map(schema, 'patternProperties', at))
          .filter((k) => k !== '__proto__')
          .map((pattern) => patternOf(pattern, c.patterns));
  const isAdditional = (key: string) => !declared.has(key) && !patterns.some((p) => p.test(key));
  if (extra === false) {
    return (data, path, sink) => {
      for (const additionalProperty of Object.keys(data as object))
        if (isAdditional(additionalProperty))
          return fail(
            sink,
            'additionalProperties',
            path,
            `${at}/additionalProperties`,
            { additionalProperty },
            data,
          );
      return true;
    };
  }
  const check = c.schema(extra, `${at}/additionalProperties`);
  return (data, path, sink) => {
    for (const key of Object.keys(data as object))
      if (isAdditional(key) && !check((data as SchemaObject)[key], childPath(path, key), sink))
        return false;
    return true;
  };
}

/** `dependencies` (lists, then schemas), `dependentRequired` or `dependentSchemas`. */
function dependencyChecks(schema: SchemaObject, keyword: string, at: string, c: Compiler): Check[] {
  const entries = Object.entries(map(schema, keyword, at));
  const lists = entries.filter(([, v]) => Array.isArray(v)) as [string, string[]][];
  const schemas = entries.filter(([, v]) => !Array.isArray(v));
  const steps: Check[] = [];
  if (keyword !== 'dependentSchemas') {
    const required = lists.filter(([, deps]) => deps.length > 0);
    if (required.length > 0)
      steps.push((data, path, sink) => {
        for (const [property, deps] of required) {
          if (!has(data, property)) continue;
          const missingProperty = deps.find((dep) => !has(data, dep));
          if (missingProperty === undefined) continue;
          const params = {
            property,
            missingProperty,
            depsCount: deps.length,
            deps: deps.join(', '),
          };
          return fail(sink, keyword, path, `${at}/${keyword}`, params, data);
        }
        return true;
      });
  }
  if (keyword !== 'dependentRequired') {
    const checks = schemas
      .filter(([, sub]) => !c.alwaysValid(sub))
      .map(
        ([property, sub]) =>
          [property, c.schema(sub, `${at}/${keyword}/${segment(property)}`)] as const,
      );
    if (checks.length > 0)
      steps.push((data, path, sink) => {
        for (const [property, check] of checks)
          if (has(data, property) && !check(data, path, sink)) return false;
        return true;
      });
  }
  return steps;
}
