/**
 * Where a `$ref` leads inside one schema document: JSON Pointers (`#/$defs/x`), anchors
 * (`#name`) and the `$id`s the document declares. Nothing is fetched: a reference to anything
 * else is refused when the schema is compiled.
 *
 * @module
 */

/** A schema object or boolean, as the document holds it. */
export type Schema = boolean | { [keyword: string]: unknown };

/** Keywords whose value is one subschema. */
const ONE = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
];
/** Keywords whose value is an array of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to subschemas. */
const MAP = ['$defs', 'definitions', 'dependentSchemas', 'patternProperties', 'properties'];

// The base of a document without an `$id`, so relative ids resolve to absolute URLs.
const DEFAULT_BASE = 'schema:/root.json';

/** The subschemas directly inside `schema`, each with the JSON Pointer segments leading to it. */
export function* subschemas(schema: Schema): Generator<[Schema, string[]]> {
  if (typeof schema !== 'object') return;
  for (const keyword of ONE) {
    const value = schema[keyword];
    if (isSchema(value)) yield [value, [keyword]];
  }
  for (const keyword of LIST) {
    const value = schema[keyword];
    if (Array.isArray(value))
      for (let i = 0; i < value.length; i++)
        if (isSchema(value[i])) yield [value[i] as Schema, [keyword, String(i)]];
  }
  for (const keyword of MAP) {
    const value = schema[keyword];
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      for (const [name, sub] of Object.entries(value))
        if (isSchema(sub)) yield [sub, [keyword, name]];
  }
  const deps = schema.dependencies;
  if (typeof deps === 'object' && deps !== null && !Array.isArray(deps))
    for (const [name, sub] of Object.entries(deps))
      if (isSchema(sub) && !Array.isArray(sub)) yield [sub, ['dependencies', name]];
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null);
}

/** The references of one document, indexed once. */
export class SchemaRefs {
  /** Each schema object's base URI and the resource (the schema with that `$id`) it is in. */
  private readonly bases = new Map<object, { base: string; resource: Schema }>();
  private readonly ids = new Map<string, Schema>();
  private readonly anchors = new Map<string, Schema>();

  constructor(root: Schema) {
    this.index(root, DEFAULT_BASE, root);
  }

  private index(schema: Schema, base: string, resource: Schema): void {
    if (typeof schema !== 'object' || this.bases.has(schema)) return;
    if (typeof schema.$id === 'string' && !schema.$id.startsWith('#')) {
      base = resolve(schema.$id, base) ?? base;
      resource = schema;
      this.ids.set(base.replace(/#$/, ''), schema);
    }
    this.bases.set(schema, { base, resource });
    if (typeof schema.$anchor === 'string') this.anchors.set(`${base}#${schema.$anchor}`, schema);
    if (typeof schema.$id === 'string' && schema.$id.startsWith('#'))
      this.anchors.set(`${base}${schema.$id}`, schema);
    for (const [sub] of subschemas(schema)) this.index(sub, base, resource);
  }

  /**
   * The schema `ref` (found in `from`) leads to, with the JSON Pointer of that schema when it is
   * one; undefined when it leads outside the document.
   */
  resolve(ref: string, from: Schema): { target: Schema; pointer: string } | undefined {
    const at = typeof from === 'object' ? this.bases.get(from) : undefined;
    const base = at?.base ?? DEFAULT_BASE;
    const hash = ref.indexOf('#');
    const uri = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    let resource: Schema | undefined;
    let resourceBase: string;
    if (uri === '') {
      resource = at?.resource;
      resourceBase = base;
    } else {
      const absolute = resolve(uri, base);
      if (absolute === undefined) return undefined;
      resourceBase = absolute;
      resource = this.ids.get(absolute);
    }
    if (resource === undefined) return undefined;
    if (fragment === '') return { target: resource, pointer: '' };
    if (!fragment.startsWith('/')) {
      const anchored = this.anchors.get(`${resourceBase.replace(/#.*$/, '')}#${fragment}`);
      return anchored === undefined ? undefined : { target: anchored, pointer: `#${fragment}` };
    }
    let node: unknown = resource;
    for (const raw of fragment.slice(1).split('/')) {
      const key = safeDecode(raw)?.replace(/~1/g, '/').replace(/~0/g, '~');
      if (key === undefined || typeof node !== 'object' || node === null) return undefined;
      if (!Object.hasOwn(node, key)) return undefined;
      node = (node as { [key: string]: unknown })[key];
    }
    return isSchema(node) ? { target: node, pointer: fragment } : undefined;
  }
}

function resolve(uri: string, base: string): string | undefined {
  try {
    return new URL(uri, base).href;
  } catch {
    return undefined;
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
