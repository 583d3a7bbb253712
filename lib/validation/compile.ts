/**
 * JSON Schemas compiled by ajv, once per distinct schema text, with a bounded cache.
 *
 * @module
 */
import type Ajv2020 from 'ajv/dist/2020.js';
import type Ajv07 from 'ajv';
import type { AnySchemaObject, CodeKeywordDefinition, KeywordCxt, ValidateFunction } from 'ajv';
import type { _ } from 'ajv/dist/compile/codegen/index.js';
import type { useFunc } from 'ajv/dist/compile/util.js';
import type { getSchemaTypes } from 'ajv/dist/compile/validate/dataType.js';
import type addFormats from 'ajv-formats';
import { SchemaError, oneLine } from '../errors.js';
import { requiredModule } from '../optional-module.js';
import type { JsonSchema } from '../open-responses.js';
import { lastDuplicate } from './interpreter/equal.js';
import { SchemaRefs, type Schema } from './interpreter/schema-refs.js';
import { interpretSchema } from './interpreter/index.js';
import { linearRegExp } from './linear-regexp.js';
import { NO_ARGUMENTS_SCHEMA } from './schema-checker.js';
import { spendReference } from './work-budget.js';

/** Compiled schemas kept for reuse; the least recently used is dropped beyond this. */
export const SCHEMA_CACHE_SIZE = 512;

type Dialect = '2020-12' | 'draft-07';

/**
 * How a schema's `pattern`s and `patternProperties` keys are matched: `linear` with RE2, in time
 * linear in the input (for schemas from elsewhere: a backtracking pattern such as `^(a+)+$` would
 * block the process), or `native` with JavaScript's RegExp (for schemas the author wrote).
 */
export type PatternEngine = 'linear' | 'native';
type AjvCore = InstanceType<typeof Ajv2020.default> | InstanceType<typeof Ajv07.default>;

/**
 * Names Object.prototype has: a schema naming one of them is only ever checked with ajv's
 * own-property tests, since `data.constructor` is defined on every object.
 */
const PROTOTYPE_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype);

/**
 * Whether Object.prototype has no enumerable property: true unless something assigned one to it
 * (prototype pollution). For-in over it is a few nanoseconds when it is plain.
 */
function prototypeIsPlain(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
}

/**
 * One schema's validators. ajv's `ownProperties` (a property the schema names must be the data's
 * own, and key loops skip inherited keys) costs a hasOwnProperty call per property per call, about
 * as much as the rest of the validation. For data from JSON.parse it changes nothing as long as
 * Object.prototype has neither a property the schema names nor an enumerable one: then `data.x`
 * is defined only when `x` is the data's own, and for-in sees own keys only. So the `fast`
 * function (without those tests) is used while that holds, checked on every call, and the `own`
 * function otherwise, so the answer never depends on the prototype. Both are compiled up front:
 * ajv itself cannot compile while Object.prototype is polluted.
 */
export class SchemaCheck {
  constructor(
    private readonly fast: ValidateFunction | undefined,
    private readonly own: ValidateFunction,
  ) {}

  /** The function to validate data from JSON.parse with, now. */
  current(): ValidateFunction {
    const fast = this.fast;
    return fast !== undefined && prototypeIsPlain() ? fast : this.own;
  }
}

interface Compiled {
  readonly check: SchemaCheck;
  /** Instances shared with other schemas, and the object each compiled, for removeSchema. */
  readonly held: [AjvCore, object][];
}

/** What this module uses of ajv and ajv-formats. */
export interface AjvLibrary {
  readonly Ajv2020: typeof Ajv2020;
  readonly Ajv07: typeof Ajv07;
  readonly addFormats: typeof addFormats;
  readonly _: typeof _;
  readonly useFunc: typeof useFunc;
  readonly getSchemaTypes: typeof getSchemaTypes;
}

/**
 * ajv, as `registerAjv` from `agenttool/schema` hands it over (imported), or else loaded at the
 * first schema compiled (Node, through `require`: ajv is CommonJS): a process that defines tools
 * but has not yet checked a call's arguments with ajv (a server before its first answer) never
 * loads it.
 */
let library: AjvLibrary | undefined;

/** Makes `ajv` (imported) the library schemas compile with. */
export function provideAjv(ajv: AjvLibrary): void {
  library ??= ajv;
}

function ajvLibrary(): AjvLibrary {
  return (library ??= {
    Ajv2020: requiredModule('ajv/dist/2020.js'),
    Ajv07: requiredModule('ajv'),
    addFormats: requiredModule('ajv-formats'),
    _: requiredModule<{ _: typeof _ }>('ajv/dist/compile/codegen/index.js')._,
    useFunc: requiredModule<{ useFunc: typeof useFunc }>('ajv/dist/compile/util.js').useFunc,
    getSchemaTypes: requiredModule<{ getSchemaTypes: typeof getSchemaTypes }>(
      'ajv/dist/compile/validate/dataType.js',
    ).getSchemaTypes,
  });
}

const cache = new Map<string, Compiled>();
const sharedInstances = new Map<string, AjvCore>();

function newInstance(dialect: Dialect, ownProperties: boolean, patterns: PatternEngine): AjvCore {
  const options = {
    ...(patterns === 'linear' ? { code: { regExp: linearRegExp } } : {}),
    // User and remote schemas carry keywords ajv does not know; they are ignored, not refused.
    strict: false,
    // Infinity (JSON.parse of 1e400) is not a number a schema can mean.
    strictNumbers: true,
    // `required: ["constructor"]` must not be met by Object.prototype.constructor (see SchemaCheck).
    ownProperties,
    // Errors carry the schema and the data, which the messages quote.
    verbose: true,
    allErrors: false,
    // Unknown formats and keywords are expected in remote schemas; no console noise per tool.
    logger: false as const,
  };
  const { Ajv2020, Ajv07, addFormats, _, useFunc } = ajvLibrary();
  const ajv = dialect === 'draft-07' ? new Ajv07.default(options) : new Ajv2020.default(options);
  addFormats.default(ajv);
  linearUniqueItems(ajv);
  ajv.addKeyword({
    keyword: REFERENCE_STEP,
    schemaType: 'boolean',
    before: '$ref',
    code(cxt: KeywordCxt): void {
      cxt.gen.code(_`${useFunc(cxt.gen, countReference)}()`);
    },
  });
  return ajv;
}

/**
 * The keyword {@link markReferences} adds beside every `$ref`: it counts the reference against the
 * check's work budget (see work-budget.ts) before ajv follows it.
 */
const REFERENCE_STEP = 'agenttool:reference';

/** {@link spendReference} as ajv's generated code calls it. */
const countReference = Object.assign(() => spendReference(), { code: 'spendReference' });

/** The keywords that make a reference, as a schema's JSON text spells them. */
const REFERENCE = /"\$(?:ref|dynamicRef|recursiveRef)"/;

/** Keywords whose value is data, not schemas: nothing under them is marked. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * Adds {@link REFERENCE_STEP} to every object in `schema` (our own copy) that holds a reference,
 * wherever it is (a reference may lead anywhere in the document), except under keywords whose
 * value is data. One pass with a stack of its own; the depth is already bounded.
 */
function markReferences(schema: object): void {
  const marked: { [key: string]: unknown }[] = [];
  const stack: object[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (const item of node as unknown[])
        if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    const record = node as { [key: string]: unknown };
    if (
      typeof record.$ref === 'string' ||
      typeof record.$dynamicRef === 'string' ||
      typeof record.$recursiveRef === 'string'
    )
      marked.push(record);
    for (const [key, value] of Object.entries(record))
      if (typeof value === 'object' && value !== null && !DATA_KEYWORDS.has(key)) stack.push(value);
  }
  refuseEmptyCycles(schema, marked);
  for (const record of marked) record[REFERENCE_STEP] = true;
}

/**
 * Throws a RangeError for a chain of schemas that are nothing but a `$ref` and comes back to
 * where it started (`{"$ref": "#/$defs/x"}` as `x`): ajv refuses it as it compiles, by running
 * out of stack, but no longer once the chain's schemas hold the counting keyword too.
 */
function refuseEmptyCycles(schema: object, withReferences: readonly object[]): void {
  const refs = new SchemaRefs(schema as Schema);
  const ends = new Set<object>();
  const onlyRef = (node: unknown): node is { $ref: string } =>
    typeof node === 'object' &&
    node !== null &&
    typeof (node as { $ref?: unknown }).$ref === 'string' &&
    Object.keys(node).length === 1;
  for (const start of withReferences) {
    const chain = new Set<object>();
    let node: unknown = start;
    while (onlyRef(node) && !ends.has(node)) {
      if (chain.has(node)) throw new RangeError('a $ref cycle');
      chain.add(node);
      node = refs.resolve(node.$ref, node)?.target;
    }
    for (const passed of chain) ends.add(passed);
  }
}

/** {@link lastDuplicate} as ajv's generated code refers to it (`code` names it for standalone code). */
const findDuplicate = Object.assign(lastDuplicate, { code: 'lastDuplicate' });

/**
 * Makes `ajv`'s `uniqueItems` find a duplicate among objects and arrays in linear time. ajv
 * compares every pair of items (seconds for 20,000 objects, the event loop blocked throughout);
 * here the items are hashed once each, by a key that is the same exactly when ajv's equality
 * holds, and the pair reported is the one ajv reports. Items of known scalar types keep ajv's own
 * loop, already linear. The rule is swapped in place: this instance's copy of the definition,
 * so the keyword keeps its place in ajv's order and its error (`must NOT have duplicate items`).
 */
function linearUniqueItems(ajv: AjvCore): void {
  const rule = ajv.RULES.all.uniqueItems;
  if (typeof rule !== 'object') return;
  const definition = rule.definition as CodeKeywordDefinition;
  const original = definition.code;
  const { _, useFunc } = ajvLibrary();
  rule.definition = {
    ...definition,
    code(cxt: KeywordCxt, ruleType?: string): void {
      const { gen, data, schema, parentSchema } = cxt;
      if (cxt.$data || schema !== true || scalarItems(parentSchema as { items?: unknown })) {
        original.call(this, cxt, ruleType);
        return;
      }
      const pair = gen.const('pair', _`${useFunc(gen, findDuplicate)}(${data})`);
      gen.if(_`${pair} !== undefined`, () => {
        const i = gen.const('i', _`${pair}[0]`);
        const j = gen.const('j', _`${pair}[1]`);
        cxt.setParams({ i, j });
        cxt.error();
      });
    },
  } as typeof rule.definition;
}

/** Whether ajv's `uniqueItems` checks the items as scalars, with its own map loop (as ajv decides). */
function scalarItems(parentSchema: { items?: unknown }): boolean {
  const items = parentSchema.items;
  const types = items ? ajvLibrary().getSchemaTypes(items as AnySchemaObject) : [];
  return types.length > 0 && !types.some((t) => t === 'object' || t === 'array');
}
/** Draft-04, 06 and 07 schemas get ajv's draft-07 rules; everything else 2020-12's. */
function dialectOf(schema: JsonSchema): Dialect {
  const declared = schema.$schema;
  return typeof declared === 'string' && /draft-0[467]\b/.test(declared) ? 'draft-07' : '2020-12';
}

/**
 * The validators for `schema` (undefined: {@link NO_ARGUMENTS_SCHEMA}), compiled once per distinct
 * JSON text and pattern engine and shared by every caller with the same. Throws a SchemaError
 * naming `tool` when the schema is not a JSON object or ajv refuses it (a pattern the engine
 * cannot compile included).
 */
export function compileSchema(
  schema: JsonSchema | undefined,
  tool: string,
  patterns: PatternEngine = 'linear',
): SchemaCheck {
  const source = schema ?? NO_ARGUMENTS_SCHEMA;
  // The interpreter's checks come first, and are ajv's too: a schema that is not a JSON object,
  // nests too deep, uses what neither engine supports (unevaluated* holding a schema, $dynamicRef,
  // a reference outside the schema) is refused alike by both, which then answer the same schemas
  // the same way (test/schema/json-schema-suite.test.ts; ajv gets some of those refused ones wrong).
  interpretSchema(source, tool, patterns);
  const text = JSON.stringify(source);
  const key = `${patterns}:${text}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Refresh its place: a Map iterates in insertion order, so the first key is the oldest.
    cache.delete(key);
    cache.set(key, hit);
    return hit.check;
  }
  const compiled = compileText(text, tool, patterns);
  cache.set(key, compiled);
  if (cache.size > SCHEMA_CACHE_SIZE) evictOldest();
  return compiled.check;
}

function compileText(text: string, tool: string, patterns: PatternEngine): Compiled {
  const held: [AjvCore, object][] = [];
  const compileWith = (ownProperties: boolean): ValidateFunction => {
    // Ajv compiles our own copy, so a caller mutating its schema later changes nothing here.
    const schema = JSON.parse(text) as JsonSchema;
    const dialect = dialectOf(schema);
    // The instance's own meta-schema checks it; a `$schema` naming another (draft-04, 2019-09, an
    // unknown URI) would make ajv look up a meta-schema it does not have.
    delete schema.$schema;
    // An `$id` registers the schema by name in its instance, so two tools whose schemas reuse an
    // id would collide in a shared one.
    const own = text.includes('"$id"');
    const instanceKey = `${dialect}/${ownProperties}/${patterns}`;
    let ajv = own ? undefined : sharedInstances.get(instanceKey);
    if (ajv === undefined) {
      ajv = newInstance(dialect, ownProperties, patterns);
      if (!own) sharedInstances.set(instanceKey, ajv);
    }
    try {
      if (REFERENCE.test(text)) markReferences(schema);
      const validate = ajv.compile(schema);
      if (!own) held.push([ajv, schema]);
      return validate;
    } catch (error) {
      // A failed compile may leave the schema in the instance's cache.
      ajv.removeSchema(schema);
      const problem =
        error instanceof RangeError
          ? 'the schema refers to itself without end (a $ref cycle)'
          : oneLine(error instanceof Error ? error.message : String(error));
      throw new SchemaError(tool, problem);
    }
  };
  const namesPrototype = PROTOTYPE_NAMES.some((name) => text.includes(JSON.stringify(name)));
  const own = compileWith(true);
  const check = new SchemaCheck(namesPrototype ? undefined : compileWith(false), own);
  return { check, held };
}

function evictOldest(): void {
  const oldest = cache.keys().next();
  if (oldest.done === true) return;
  const entry = cache.get(oldest.value)!;
  cache.delete(oldest.value);
  // The compiled functions stay valid for whoever holds them; ajv only forgets them.
  for (const [ajv, schema] of entry.held) ajv.removeSchema(schema);
}
