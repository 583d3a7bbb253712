/**
 * Which zod schemas may decode a call's arguments without checking them against the JSON Schema
 * first (see `tool()`): those where every value zod accepts, the JSON Schema served for it accepts
 * too. For them, zod alone runs on a call that passes; a call zod refuses is checked against the
 * JSON Schema then, so its message is the one it always was.
 *
 * A schema qualifies when each of its nodes is of a kind whose JSON Schema is as wide as zod's
 * test, or wider: objects (properties stripped or refused as JSON Schema says), arrays, strings
 * without a format or a pattern and at most one character required (JSON Schema counts code
 * points, and not every zod 4 release does), numbers without `multipleOf`, booleans, null, enums, literals,
 * optional, nullable, default, readonly, refinements (which only narrow), transforms and pipes
 * judged by what they take in, unions that are not discriminated. Anything else (a format, a
 * pattern, coercion, `catch`, a preprocess, a date (whose text becomes a Date before zod sees it),
 * a record, a tuple, recursion, a zod 3 schema) keeps both checks.
 *
 * @module
 */
import type { Decoded, OnceReader } from '../tool-arguments.js';

/** A zod 4 node's definition, as far as this reads it. */
interface Def {
  readonly type?: string;
  readonly coerce?: boolean;
  readonly format?: string;
  readonly checks?: readonly { readonly _zod?: { readonly def?: CheckDef } }[];
  readonly shape?: Record<string, unknown>;
  readonly catchall?: unknown;
  readonly element?: unknown;
  readonly innerType?: unknown;
  readonly in?: unknown;
  readonly options?: readonly unknown[];
  readonly discriminator?: unknown;
}

/** A check's definition: its kind and, for the ones read here, its bound. */
interface CheckDef {
  readonly check?: string;
  readonly format?: string;
  readonly minimum?: number;
}

/** zod 4's number formats: each is served as its bounds (and `integer`), which zod also keeps. */
const NUMBER_FORMATS = new Set(['safeint', 'int32', 'uint32', 'float32', 'float64']);

/** Deepest nesting walked: a deeper schema keeps both checks. */
const MAX_DEPTH = 64;

function defOf(schema: unknown): Def | undefined {
  const zod = (schema as { _zod?: { def?: Def } } | null | undefined)?._zod;
  return zod?.def;
}

/**
 * Whether the zod 4 object schema `root`, served non-strict, may decode arguments without the
 * JSON Schema check (see the module).
 */
export function decodesOnce(root: unknown): boolean {
  const def = defOf(root);
  if (def?.type !== 'object') return false;
  return widens(root, new Set(), 0);
}

/** Whether every value `schema` accepts, its JSON Schema accepts. */
function widens(schema: unknown, active: Set<unknown>, depth: number): boolean {
  const def = defOf(schema);
  if (def === undefined || depth > MAX_DEPTH || active.has(schema)) return false;
  if (def.coerce === true) return false;
  active.add(schema);
  try {
    if (!checksWiden(def)) return false;
    const inner = (child: unknown): boolean => widens(child, active, depth + 1);
    switch (def.type) {
      case 'string':
        return def.format === undefined;
      case 'number':
        return def.format === undefined || NUMBER_FORMATS.has(def.format);
      case 'boolean':
      case 'null':
      case 'enum':
      case 'literal':
      case 'any':
      case 'unknown':
        return true;
      case 'object': {
        const shape = def.shape ?? {};
        for (const key of Object.keys(shape)) if (!inner(shape[key])) return false;
        // Stripped (no catchall): served without additionalProperties, so both take any others.
        return def.catchall === undefined || inner(def.catchall) || isNever(def.catchall);
      }
      case 'array':
        return inner(def.element);
      case 'optional':
      case 'nullable':
      case 'default':
      case 'readonly':
        return inner(def.innerType);
      case 'pipe':
        // A preprocess (a transform first) takes anything, and is served as what it gives.
        return defOf(def.in)?.type !== 'transform' && inner(def.in);
      case 'union':
        return (
          def.discriminator === undefined && def.options !== undefined && def.options.every(inner)
        );
      default:
        return false;
    }
  } finally {
    active.delete(schema);
  }
}

/** A catchall of `never`: extra properties refused, as `additionalProperties: false` says. */
function isNever(schema: unknown): boolean {
  return defOf(schema)?.type === 'never';
}

/** Whether every check of a node only narrows in the way its JSON Schema does, or narrower. */
function checksWiden(def: Def): boolean {
  for (const check of def.checks ?? []) {
    const c = check._zod?.def;
    switch (c?.check) {
      // Refinements only narrow; zod's bounds are JSON Schema's.
      case 'custom':
      case 'max_length':
      case 'greater_than':
      case 'less_than':
        continue;
      case 'min_length':
        // A string's length: JSON Schema counts code points, and zod 4 has not always done so
        // (UTF-16 units count an emoji twice); they agree on whether a string is empty. An
        // array's length is the same for both.
        if (def.type === 'array' || (c.minimum ?? 0) <= 1) continue;
        return false;
      case 'length_equals':
        if (def.type === 'array') continue;
        return false;
      case 'number_format':
        if (c.format !== undefined && NUMBER_FORMATS.has(c.format)) continue;
        return false;
      default:
        return false;
    }
  }
  return true;
}

/**
 * Reads the calls of a schema that qualifies ({@link decodesOnce}) with one check: decoded at once;
 * a value zod refuses is checked against the JSON Schema (whose message comes first, as when it
 * checked first), else gets zod's message. Anything unexpected on the way (a refinement that
 * throws, say) goes the way of two checks, which decides as it always did. Undefined for a schema
 * that does not qualify.
 */
export const onceReader: OnceReader = (source, parts) => {
  const { strict, validator, prepare, decode, settle, twice } = parts;
  // Under strict, an optional property must still be sent (as null): zod takes it left out.
  if (decode === undefined || strict || !decodesOnce(source)) return undefined;
  const refused = (decoded: Decoded, value: unknown, prepared: unknown, size?: number) => {
    validator.check(value, size);
    return settle(decoded, prepared);
  };
  const once = (value: unknown, size: number | undefined): unknown => {
    let decoded: Decoded | Promise<Decoded>;
    let prepared: unknown;
    try {
      prepared = prepare === undefined ? value : prepare(value);
      decoded = decode(prepared);
    } catch {
      return twice(value, size);
    }
    if (decoded instanceof Promise)
      return decoded.then(
        (settled) => (settled.success ? settled.data : refused(settled, value, prepared, size)),
        () => twice(value, size),
      );
    return decoded.success ? decoded.data : refused(decoded, value, prepared, size);
  };
  // `read` refuses anything but a string before its length is read.
  return (raw) => once(validator.read(raw), raw.length);
};
