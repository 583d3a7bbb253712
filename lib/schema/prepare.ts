/**
 * The walk over a zod schema made once at registration: it refuses what JSON Schema cannot carry
 * (and recursion), and it builds the `prepare` step that turns validated JSON into what zod
 * expects, touching only the paths that need it.
 *
 * @module
 */
import { SchemaError } from '../errors.js';
import type { SafeParsing, SchemaNode, SchemaReader } from './node.js';
import { objectPreparer, type FieldTask, type Prepare } from './preparers.js';
import {
  arrayPreparer,
  recordPreparer,
  toDate,
  tuplePreparer,
  unionPreparer,
} from './preparers.js';

/** Options of {@link compilePreparer}. */
export interface PreparerOptions {
  /** Strict mode: a null sent for an optional field that does not accept null becomes absent. */
  readonly strict: boolean;
  /** The tool named in a SchemaError. */
  readonly tool: string;
}

/** Deeper than this is refused: no real argument schema nests so far, and a runaway lazy would. */
const maxDepth = 128;

/**
 * Walks `root` and returns its prepare step, or undefined when values need no rewriting. Throws a
 * SchemaError naming the tool and the path for a type JSON Schema cannot carry (bigint, symbol,
 * undefined, void, NaN, function, Map, Set, promise, custom, file, never) and for recursion.
 */
export function compilePreparer(
  root: unknown,
  read: SchemaReader,
  options: PreparerOptions,
): Prepare | undefined {
  return new PreparerBuilder(read, options).build(root, '');
}

/**
 * Throws the SchemaError for a root that is not an object schema (after its wrappers); an
 * intersection passes here and is judged by the JSON it produces.
 */
export function requireObjectRoot(root: unknown, read: SchemaReader, tool: string): void {
  let node = read(root);
  for (let depth = 0; node.kind === 'wrapper' && !node.nullable && depth < maxDepth; depth++)
    node = read(node.inner);
  if (node.kind !== 'object' && node.kind !== 'intersection')
    throw new SchemaError(tool, 'tool parameters must be an object schema');
}

class PreparerBuilder {
  /** Finished nodes (null: nothing to do), so a schema reused in many places is walked once. */
  private readonly done = new Map<unknown, Prepare | null>();
  private readonly active = new Set<unknown>();

  constructor(
    private readonly read: SchemaReader,
    private readonly options: PreparerOptions,
  ) {}

  build(schema: unknown, path: string): Prepare | undefined {
    const known = this.done.get(schema);
    if (known !== undefined) return known ?? undefined;
    if (this.active.has(schema)) throw this.error(path, 'recursive schema');
    if (this.active.size >= maxDepth) throw this.error(path, 'schema nested too deeply');
    this.active.add(schema);
    try {
      const prepare = this.node(this.read(schema), path);
      this.done.set(schema, prepare ?? null);
      return prepare;
    } finally {
      this.active.delete(schema);
    }
  }

  private node(node: SchemaNode, path: string): Prepare | undefined {
    switch (node.kind) {
      case 'object': {
        const tasks: FieldTask[] = [];
        for (const field of node.fields) {
          const prepare = this.build(
            field.schema,
            path === '' ? field.key : `${path}.${field.key}`,
          );
          const nullToAbsent =
            this.options.strict && field.optional && !this.acceptsNull(field.schema, 0);
          if (prepare !== undefined || nullToAbsent)
            tasks.push({ key: field.key, prepare, nullToAbsent });
        }
        const extra =
          node.catchall === undefined ? undefined : this.build(node.catchall, `${path}.*`);
        if (tasks.length === 0 && extra === undefined) return undefined;
        return objectPreparer(
          tasks,
          extra && { declared: new Set(node.fields.map((f) => f.key)), prepare: extra },
        );
      }
      case 'array': {
        const element = this.build(node.element, `${path}[]`);
        return element && arrayPreparer(element);
      }
      case 'tuple': {
        const items = node.items.map((item, i) => this.build(item, `${path}[${i}]`));
        const rest = node.rest === undefined ? undefined : this.build(node.rest, `${path}[]`);
        return items.some((p) => p !== undefined) || rest !== undefined
          ? tuplePreparer(items, rest)
          : undefined;
      }
      case 'record': {
        const value = this.build(node.value, `${path}.*`);
        return value && recordPreparer(value);
      }
      case 'union': {
        const prepares = node.options.map((option) => this.build(option, path));
        if (prepares.every((p) => p === undefined)) return undefined;
        const discriminator = node.discriminator;
        if (discriminator !== undefined) {
          const byValue = new Map<unknown, Prepare>();
          for (const [value, option] of discriminator.options) {
            const prepare = prepares[node.options.indexOf(option)];
            if (prepare !== undefined) byValue.set(value, prepare);
          }
          return unionPreparer({ key: discriminator.key, byValue });
        }
        return unionPreparer({ options: node.options as readonly SafeParsing[], prepares });
      }
      case 'intersection': {
        const left = this.build(node.left, path);
        const right = this.build(node.right, path);
        if (left === undefined || right === undefined) return left ?? right;
        return (value) => right(left(value));
      }
      case 'wrapper':
        return this.build(node.inner, path);
      case 'date':
        return toDate;
      case 'leaf':
        return undefined;
      case 'refused':
        throw this.error(path, `${node.what} cannot be represented in JSON Schema`);
    }
  }

  /** Whether zod itself accepts null here, so that a null the model sends must reach it. */
  private acceptsNull(schema: unknown, depth: number): boolean {
    if (depth > maxDepth) return false;
    const node = this.read(schema);
    switch (node.kind) {
      case 'wrapper':
        return node.nullable || this.acceptsNull(node.inner, depth + 1);
      case 'leaf':
        return node.acceptsNull;
      case 'union':
        return node.options.some((option) => this.acceptsNull(option, depth + 1));
      case 'intersection':
        return this.acceptsNull(node.left, depth + 1) && this.acceptsNull(node.right, depth + 1);
      default:
        return false;
    }
  }

  private error(path: string, problem: string): SchemaError {
    return new SchemaError(this.options.tool, path === '' ? problem : `${path}: ${problem}`);
  }
}
