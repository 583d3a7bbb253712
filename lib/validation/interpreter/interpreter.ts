/**
 * A JSON Schema interpreter: the schema is turned once into a tree of closures, with no code
 * generation (`new Function`), so it runs under a Content-Security-Policy without
 * `'unsafe-eval'`. It follows ajv's rules as agenttool configures ajv (first failure only,
 * own properties only, finite numbers, ajv-formats' formats) and reports failures as ajv does,
 * keyword by keyword in ajv's order, so the one-line messages are the same whichever checked.
 *
 * @module
 */
import { fail, failAfter } from './failure.js';
import { dataPath, SchemaProblem, sequence, typeTest, type Check } from './check.js';
import { jsonEqual } from './equal.js';
import type { PatternEngine } from '../compile.js';
import { arrayGroup, numberGroup, stringGroup } from './typed-keywords.js';
import { objectGroup } from './object-keywords.js';
import { SchemaRefs, type Schema } from './schema-refs.js';
import { spendReference } from '../work-budget.js';

/** The JSON types a `type` keyword may name. */
const JSON_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

/** The data types of ajv's keyword groups, in the order ajv applies them. */
export type GroupType = 'number' | 'string' | 'array' | 'object';

/** What builds one keyword group: null when the schema has none of its keywords. */
export type GroupBuilder = (
  schema: { [keyword: string]: unknown },
  at: string,
  c: Compiler,
) => Check | null;

const GROUPS: [GroupType, GroupBuilder][] = [
  ['number', numberGroup],
  ['string', stringGroup],
  ['array', arrayGroup],
  ['object', objectGroup],
];

/** Compiles the schemas of one document; each schema object is compiled once. */
export class Compiler {
  private readonly compiled = new Map<object, Check>();
  private readonly refs: SchemaRefs;

  /**
   * @param root The schema document, where references resolve.
   * @param patterns How its `pattern`s are matched.
   */
  constructor(
    readonly root: Schema,
    readonly patterns: PatternEngine,
  ) {
    this.refs = new SchemaRefs(root);
  }

  /** The check for `schema`, found at schema path `at` (`#/properties/a`). */
  schema(schema: unknown, at: string): Check {
    if (schema === true) return () => true;
    if (schema === false)
      return (data, path, sink) => fail(sink, 'false schema', path, at, {}, data);
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      throw new SchemaProblem(`schema is invalid: ${dataPath(at)} must be object,boolean`);
    const done = this.compiled.get(schema);
    if (done !== undefined) return done;
    // A reference back to a schema being compiled calls it through this, once it exists.
    const slot: { check?: Check } = {};
    this.compiled.set(schema, (data, path, sink) => slot.check!(data, path, sink));
    slot.check = this.build(schema as { [keyword: string]: unknown }, at);
    return slot.check;
  }

  /** Whether `schema` always passes, so a keyword holding it checks nothing (as in ajv). */
  alwaysValid(schema: unknown): boolean {
    if (typeof schema === 'boolean') return schema;
    return typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0;
  }

  private build(schema: { [keyword: string]: unknown }, at: string): Check {
    const types = typesOf(schema, at);
    const steps: Check[] = [];
    const groups = GROUPS.map(([type, build]) => [type, build(schema, at, this)] as const);
    const usesGroup = (type: string): boolean => groups.some(([t, c]) => t === type && c !== null);
    // ajv checks the type first unless a single type has keywords of its own to check, in which
    // case the type is reported where that group is reached.
    const typeFirst = types.length > 0 && !(types.length === 1 && usesGroup(types[0]!));
    if (typeFirst) {
      const declared = schema.type;
      const tests = types.map(typeTest);
      const first = tests[0]!;
      const matches =
        tests.length === 1 ? first : (data: unknown) => tests.some((test) => test(data));
      steps.push((data, path, sink) =>
        matches(data) ? true : fail(sink, 'type', path, `${at}/type`, { type: declared }, data),
      );
    }
    steps.push(...this.untyped(schema, at));
    for (const [type, check] of groups) {
      if (check === null) continue;
      const reportType = !typeFirst && types.length === 1 && types[0] === type;
      const declared = schema.type;
      const isOfType = typeTest(type);
      steps.push((data, path, sink) => {
        if (isOfType(data)) return check(data, path, sink);
        return reportType ? fail(sink, 'type', path, `${at}/type`, { type: declared }, data) : true;
      });
    }
    return sequence(steps);
  }

  /** The keywords that apply to data of every type, in ajv's order. */
  private untyped(schema: { [keyword: string]: unknown }, at: string): Check[] {
    const steps: Check[] = [];
    if (schema.$ref !== undefined) steps.push(this.ref(schema, at));
    if (schema.const !== undefined) {
      const allowedValue = schema.const;
      steps.push((data, path, sink) =>
        jsonEqual(data, allowedValue)
          ? true
          : fail(sink, 'const', path, `${at}/const`, { allowedValue }, data),
      );
    }
    if (schema.enum !== undefined) {
      const allowedValues = schema.enum;
      if (!Array.isArray(allowedValues))
        throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/enum must be array`);
      // Members that are not objects compare by ===, which a Set does (0 and -0 alike).
      const scalars = allowedValues.every((v) => typeof v !== 'object' || v === null)
        ? new Set(allowedValues)
        : undefined;
      steps.push((data, path, sink) =>
        (scalars !== undefined ? scalars.has(data) : allowedValues.some((v) => jsonEqual(data, v)))
          ? true
          : fail(sink, 'enum', path, `${at}/enum`, { allowedValues }, data),
      );
    }
    if (schema.not !== undefined) {
      const inner = this.schema(schema.not, `${at}/not`);
      steps.push((data, path, sink) => {
        const before = sink.errors.length;
        sink.composite++;
        const passed = inner(data, path, sink);
        sink.composite--;
        sink.errors.length = before;
        return passed ? fail(sink, 'not', path, `${at}/not`, {}, data) : true;
      });
    }
    if (schema.anyOf !== undefined) steps.push(this.anyOf(this.list(schema, 'anyOf', at), at));
    if (schema.oneOf !== undefined) steps.push(this.oneOf(this.list(schema, 'oneOf', at), at));
    if (schema.allOf !== undefined) steps.push(sequence(this.list(schema, 'allOf', at)));
    const conditional = this.conditional(schema, at);
    if (conditional !== undefined) steps.push(conditional);
    return steps;
  }

  /** The checks of a keyword holding a non-empty array of schemas. */
  list(schema: { [keyword: string]: unknown }, keyword: string, at: string): Check[] {
    const value = schema[keyword];
    if (!Array.isArray(value) || value.length === 0)
      throw new SchemaProblem(
        `schema is invalid: ${dataPath(at)}/${keyword} must be a non-empty array`,
      );
    return value.map((sub, i) => this.schema(sub, `${at}/${keyword}/${i}`));
  }

  private ref(schema: { [keyword: string]: unknown }, at: string): Check {
    const ref = schema.$ref;
    if (typeof ref !== 'string')
      throw new SchemaProblem(`schema is invalid: ${dataPath(at)}/$ref must be string`);
    const found = this.refs.resolve(ref, schema);
    if (found === undefined) throw new SchemaProblem(`can't resolve reference ${ref}`);
    this.refuseEmptyCycle(found.target, new Set([schema]));
    const target = this.schema(found.target, `#${found.pointer}`);
    // Every reference followed counts against the check's budget (see work-budget.ts).
    if (!hasRef(found.target))
      return (data, path, sink) => {
        spendReference();
        return target(data, path, sink);
      };
    // ajv calls a schema with references in it as a function of its own: its failures are
    // reported as that function returns them, after the caller's.
    return (data, path, sink) => {
      spendReference();
      const inner = { errors: [], composite: 0 };
      if (target(data, path, inner)) return true;
      for (const error of inner.errors) sink.errors.push(error);
      return false;
    };
  }

  /** Refuses a chain of schemas that are only `$ref`s and comes back to where it started. */
  private refuseEmptyCycle(target: Schema, seen: Set<object>): void {
    let node: Schema = target;
    while (
      typeof node === 'object' &&
      typeof node.$ref === 'string' &&
      Object.keys(node).length === 1
    ) {
      if (seen.has(node)) throw new RangeError('a $ref cycle');
      seen.add(node);
      const next = this.refs.resolve(node.$ref as string, node);
      if (next === undefined) return;
      node = next.target;
    }
    if (typeof node === 'object' && seen.has(node)) throw new RangeError('a $ref cycle');
  }

  private anyOf(branches: Check[], at: string): Check {
    return (data, path, sink) => {
      const before = sink.errors.length;
      sink.composite++;
      for (const branch of branches) {
        if (branch(data, path, sink)) {
          sink.composite--;
          sink.errors.length = before;
          return true;
        }
      }
      sink.composite--;
      return failAfter(sink, 'anyOf', path, `${at}/anyOf`, {}, data);
    };
  }

  private oneOf(branches: Check[], at: string): Check {
    return (data, path, sink) => {
      const before = sink.errors.length;
      let passing: number | undefined;
      sink.composite++;
      for (let i = 0; i < branches.length; i++) {
        if (!branches[i]!(data, path, sink)) continue;
        if (passing !== undefined) {
          sink.composite--;
          const passingSchemas = [passing, i];
          return failAfter(sink, 'oneOf', path, `${at}/oneOf`, { passingSchemas }, data);
        }
        passing = i;
      }
      sink.composite--;
      if (passing === undefined)
        return failAfter(sink, 'oneOf', path, `${at}/oneOf`, { passingSchemas: null }, data);
      sink.errors.length = before;
      return true;
    };
  }

  private conditional(schema: { [keyword: string]: unknown }, at: string): Check | undefined {
    if (schema.if === undefined) return undefined;
    const hasThen = schema.then !== undefined && !this.alwaysValid(schema.then);
    const hasElse = schema.else !== undefined && !this.alwaysValid(schema.else);
    if (!hasThen && !hasElse) return undefined;
    const condition = this.schema(schema.if, `${at}/if`);
    const then = hasThen ? this.schema(schema.then, `${at}/then`) : undefined;
    const otherwise = hasElse ? this.schema(schema.else, `${at}/else`) : undefined;
    return (data, path, sink) => {
      const before = sink.errors.length;
      sink.composite++;
      const holds = condition(data, path, sink);
      sink.composite--;
      sink.errors.length = before;
      const clause = holds ? then : otherwise;
      if (clause === undefined || clause(data, path, sink)) return true;
      // Outside a composite, ajv returns with the clause's failure alone.
      if (sink.composite === 0) return false;
      const failingKeyword = holds ? 'then' : 'else';
      return failAfter(sink, 'if', path, `${at}/if`, { failingKeyword }, data);
    };
  }
}

/** Whether a reference appears anywhere in `schema`, which makes ajv compile it as a function. */
function hasRef(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') return true;
    if (Array.isArray(value) ? value.some(hasRef) : hasRef(value)) return true;
  }
  return false;
}

/** The types a schema allows, `nullable: true` adding null; throws for a name JSON lacks. */
function typesOf(schema: { [keyword: string]: unknown }, at: string): string[] {
  const declared = schema.type;
  const types =
    declared === undefined ? [] : Array.isArray(declared) ? declared.slice() : [declared];
  for (const type of types) {
    if (typeof type !== 'string' || !JSON_TYPES.has(type))
      throw new SchemaProblem(
        `schema is invalid: ${dataPath(at)}/type must be equal to one of the allowed values`,
      );
  }
  if (schema.nullable === true && types.length > 0 && !types.includes('null')) types.push('null');
  return types as string[];
}
