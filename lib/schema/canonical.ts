/**
 * The canonical form of a generated JSON Schema: the same meaning always in the same bytes, so
 * that zod 4 and zod 3 agree and providers can cache prompts by their text.
 *
 * @module
 */
import { SchemaError } from '../errors.js';
import {
  hasOwn,
  isObject,
  jsonValue,
  literalTypes,
  mergeObjects,
  numberKeys,
  ordered,
  setOwn,
} from './members.js';
import type { JsonSchema } from '../open-responses.js';
import { addNull, annotationKeys, enumValues, typesOf, typeValue, unionOf } from './union.js';

/** Options of {@link canonicalSchema}. */
export interface CanonicalOptions {
  /** Apply the strict rules: every property required, optional ones nullable, no extra properties. */
  readonly strict: boolean;
  /** The tool named in a SchemaError. */
  readonly tool: string;
}

/**
 * The canonical form of `generated` (a JSON Schema from zod 4 or zod-to-json-schema). References
 * into `$defs`/`definitions` are inlined; a recursive one is refused with a SchemaError, as are,
 * in strict mode, records and catchall schemas.
 */
export function canonicalSchema(generated: JsonSchema, options: CanonicalOptions): JsonSchema {
  const defs = generated.$defs ?? generated.definitions;
  return new Canonicaliser(options, isObject(defs) ? defs : {}).schema(generated, '');
}

class Canonicaliser {
  private readonly resolving = new Set<string>();

  constructor(
    private readonly options: CanonicalOptions,
    private readonly defs: JsonSchema,
  ) {}

  schema(input: unknown, path: string): JsonSchema {
    if (input === true) return {};
    if (input === false) return { not: {} };
    if (!isObject(input)) throw this.error(path, 'not a JSON Schema object');
    if (typeof input.$ref === 'string') return this.reference(input, path);
    const out: JsonSchema = {};
    if (typeof input.description === 'string') out.description = input.description;
    if (typeof input.format === 'string') out.format = input.format;
    if (Array.isArray(input.enum)) out.enum = enumValues(input.enum.map(jsonValue));
    if ('const' in input && jsonValue(input.const) !== undefined)
      out.const = jsonValue(input.const);
    for (const key of numberKeys) if (typeof input[key] === 'number') out[key] = input[key];
    if (input.uniqueItems === true) out.uniqueItems = true;
    if (typeof input.pattern === 'string') out.pattern = input.pattern;
    if (typeof input['x-mcp-header'] === 'string') out['x-mcp-header'] = input['x-mcp-header'];
    if ('default' in input && !this.options.strict && jsonValue(input.default) !== undefined)
      out.default = jsonValue(input.default);
    const types = input.type === undefined ? literalTypes(out) : typesOf(input);
    if (types.length > 0) out.type = typeValue(types);
    if (out.type === 'null') {
      delete out.const;
      delete out.enum;
    }
    this.objectMembers(input, out, path);
    this.arrayMembers(input, out, path);
    if (input.not !== undefined) out.not = this.schema(input.not, path);
    if (Array.isArray(input.oneOf))
      out.oneOf = input.oneOf.map((b: unknown) => this.schema(b, path));
    if (Array.isArray(input.allOf)) this.allOf(input.allOf, out, path);
    if (!Array.isArray(input.anyOf)) return ordered(out);
    const union = unionOf(input.anyOf.map((b: unknown) => this.schema(b, path)));
    if (Object.keys(out).every((key) => annotationKeys.has(key)))
      return ordered({ ...union, ...out });
    out.anyOf = isPlainAnyOf(union) ? union.anyOf : [union];
    return ordered(out);
  }

  private objectMembers(input: JsonSchema, out: JsonSchema, path: string): void {
    const properties = isObject(input.properties) ? input.properties : undefined;
    const isObjectType = properties !== undefined || typesOf(out).includes('object');
    let additional: JsonSchema | false | undefined;
    if (input.additionalProperties === false) additional = false;
    else if (input.additionalProperties !== undefined && input.additionalProperties !== true) {
      const value = this.schema(input.additionalProperties, `${path}.*`);
      if (Object.keys(value).length > 0) additional = value;
    }
    if (this.options.strict && isObjectType) {
      if (additional !== undefined && additional !== false) {
        const what = properties === undefined ? 'a record' : 'a catchall schema';
        throw this.error(path, `${what} cannot be expressed in strict mode`);
      }
      additional = false;
    }
    if (properties !== undefined || (this.options.strict && isObjectType)) {
      const given = new Set(Array.isArray(input.required) ? input.required : []);
      const props: JsonSchema = {};
      const required: string[] = [];
      for (const key of Object.keys(properties ?? {})) {
        let value = this.schema(properties?.[key], path === '' ? key : `${path}.${key}`);
        if (given.has(key)) required.push(key);
        else if (this.options.strict) {
          value = nullable(value);
          required.push(key);
        }
        setOwn(props, key, value);
      }
      out.properties = props;
      out.required = required;
    } else if (Array.isArray(input.required)) {
      out.required = input.required.filter((key: unknown) => typeof key === 'string');
    }
    if (input.propertyNames !== undefined) {
      const names = this.schema(input.propertyNames, path);
      if (
        Object.keys(names).length > 0 &&
        !(Object.keys(names).length === 1 && names.type === 'string')
      )
        out.propertyNames = names;
    }
    if (additional !== undefined) out.additionalProperties = additional;
  }

  private arrayMembers(input: JsonSchema, out: JsonSchema, path: string): void {
    // Draft 7 writes a tuple as an `items` array and its rest as `additionalItems`; 2020-12 does not.
    const { items, prefixItems } = input;
    const draft7 = Array.isArray(items);
    const prefix = draft7 ? items : Array.isArray(prefixItems) ? prefixItems : undefined;
    const rest = draft7 ? input.additionalItems : items;
    if (prefix !== undefined)
      out.prefixItems = prefix.map((item: unknown, i: number) =>
        this.schema(item, `${path}[${i}]`),
      );
    if (rest === undefined || rest === true) return;
    if (rest === false) {
      const closed =
        prefix !== undefined && typeof out.maxItems === 'number' && out.maxItems <= prefix.length;
      if (!closed) out.items = false;
      return;
    }
    const each = this.schema(rest, `${path}[]`);
    if (Object.keys(each).length > 0) out.items = each;
  }

  private allOf(members: unknown[], out: JsonSchema, path: string): void {
    const schemas = members.map((m) => this.schema(m, path));
    const merged = mergeObjects(schemas);
    if (merged !== undefined && Object.keys(out).every((key) => annotationKeys.has(key))) {
      Object.assign(out, merged);
      return;
    }
    if (this.options.strict && schemas.some((s) => typesOf(s).includes('object')))
      throw this.error(path, 'an intersection of objects cannot be expressed in strict mode');
    out.allOf = schemas;
  }

  private reference(input: JsonSchema, path: string): JsonSchema {
    const ref = input.$ref as string;
    const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (match === null)
      throw this.error(path, ref === '#' ? 'recursive schema' : `unsupported reference "${ref}"`);
    const name = match[1].replace(/~1/g, '/').replace(/~0/g, '~');
    if (this.resolving.has(name)) throw this.error(path, 'recursive schema');
    const target = hasOwn(this.defs, name) ? this.defs[name] : undefined;
    if (!isObject(target)) throw this.error(path, `unsupported reference "${ref}"`);
    const siblings: JsonSchema = { ...input };
    delete siblings.$ref;
    this.resolving.add(name);
    try {
      return this.schema({ ...target, ...siblings }, path);
    } finally {
      this.resolving.delete(name);
    }
  }

  private error(path: string, problem: string): SchemaError {
    return new SchemaError(this.options.tool, path === '' ? problem : `${path}: ${problem}`);
  }
}

/** A property made nullable for strict mode; its description stays outside any `anyOf`. */
function nullable(schema: JsonSchema): JsonSchema {
  const core: JsonSchema = { ...schema };
  const notes: JsonSchema = {};
  for (const key of annotationKeys) {
    if (key in core) {
      notes[key] = core[key];
      delete core[key];
    }
  }
  return ordered({ ...addNull(core), ...notes });
}

const isPlainAnyOf = (s: JsonSchema): boolean =>
  Object.keys(s).length === 1 && Array.isArray(s.anyOf);
