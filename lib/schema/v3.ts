/**
 * zod 3 schemas (`zod/v3`): recognising one and its version-neutral node view. Its JSON Schema is
 * in v3-json.ts, loaded only where zod 3 support is registered.
 *
 * @module
 */
import type { SchemaField, SchemaNode } from './node.js';

/** A zod 3 schema's `_def`, as far as it is read here. */
export interface V3Def {
  readonly typeName: string;
  readonly description?: string;
  readonly [key: string]: unknown;
}

function defOf(schema: unknown): V3Def {
  return (schema as { _def: V3Def })._def;
}

/** Whether `value` is a zod 3 schema. */
export function isV3Schema(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const def = (value as { _def?: unknown })._def;
  return (
    typeof def === 'object' &&
    def !== null &&
    typeof (def as { typeName?: unknown }).typeName === 'string' &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

const maxUnwrap = 64;

/**
 * Whether a property may be left out, by zod 4's rule, so that both versions agree: only
 * `.optional()` and `.default()` make a property optional (not `z.any()`, not `.catch()`).
 */
export function isOptional(schema: unknown, depth = 0): boolean {
  if (depth > maxUnwrap) return false;
  const def = defOf(schema);
  switch (def.typeName) {
    case 'ZodOptional':
    case 'ZodDefault':
      return true;
    case 'ZodNullable':
    case 'ZodCatch':
    case 'ZodReadonly':
      return isOptional(def.innerType, depth + 1);
    case 'ZodBranded':
      return isOptional(def.type, depth + 1);
    case 'ZodEffects':
      return isOptional(def.schema, depth + 1);
    case 'ZodPipeline':
      return isOptional(def.in, depth + 1);
    case 'ZodLazy':
      return isOptional((def.getter as () => unknown)(), depth + 1);
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return (def.options as readonly unknown[]).some((o) => isOptional(o, depth + 1));
    default:
      return false;
  }
}

const refused: Readonly<Record<string, string>> = {
  ZodBigInt: 'a bigint',
  ZodSymbol: 'a symbol',
  ZodUndefined: 'undefined',
  ZodVoid: 'void',
  ZodNaN: 'NaN',
  ZodFunction: 'a function',
  ZodMap: 'a Map',
  ZodSet: 'a Set',
  ZodPromise: 'a promise',
  ZodNever: 'never',
};

/** Reads one zod 3 node; the input side of effects and pipelines, as the model writes it. */
export function readV3(schema: unknown): SchemaNode {
  const def = defOf(schema);
  switch (def.typeName) {
    case 'ZodObject': {
      const shape = (def.shape as () => Readonly<Record<string, unknown>>)();
      const fields: SchemaField[] = Object.keys(shape).map((key) => ({
        key,
        schema: shape[key],
        optional: isOptional(shape[key]),
      }));
      const open = defOf(def.catchall).typeName !== 'ZodNever';
      return { kind: 'object', fields, catchall: open ? def.catchall : undefined };
    }
    case 'ZodArray':
      return { kind: 'array', element: def.type };
    case 'ZodTuple':
      return { kind: 'tuple', items: def.items as readonly unknown[], rest: def.rest ?? undefined };
    case 'ZodRecord':
      return { kind: 'record', value: def.valueType };
    case 'ZodUnion':
      return {
        kind: 'union',
        options: def.options as readonly unknown[],
        discriminator: undefined,
      };
    case 'ZodDiscriminatedUnion':
      return {
        kind: 'union',
        options: def.options as readonly unknown[],
        discriminator: {
          key: def.discriminator as string,
          options: def.optionsMap as ReadonlyMap<unknown, unknown>,
        },
      };
    case 'ZodIntersection':
      return { kind: 'intersection', left: def.left, right: def.right };
    case 'ZodOptional':
    case 'ZodDefault':
    case 'ZodCatch':
    case 'ZodReadonly':
      return { kind: 'wrapper', inner: def.innerType, nullable: false };
    case 'ZodNullable':
      return { kind: 'wrapper', inner: def.innerType, nullable: true };
    case 'ZodBranded':
      return { kind: 'wrapper', inner: def.type, nullable: false };
    case 'ZodEffects':
      return { kind: 'wrapper', inner: def.schema, nullable: false };
    case 'ZodPipeline':
      return { kind: 'wrapper', inner: def.in, nullable: false };
    case 'ZodLazy':
      return { kind: 'wrapper', inner: (def.getter as () => unknown)(), nullable: false };
    case 'ZodDate':
      return { kind: 'date' };
    case 'ZodNull':
    case 'ZodAny':
    case 'ZodUnknown':
      return { kind: 'leaf', acceptsNull: true };
    case 'ZodLiteral': {
      const value = def.value;
      if (value === undefined || typeof value === 'bigint' || typeof value === 'symbol')
        return { kind: 'refused', what: 'a literal undefined, bigint or symbol' };
      return { kind: 'leaf', acceptsNull: value === null };
    }
    case 'ZodString':
    case 'ZodNumber':
    case 'ZodBoolean':
    case 'ZodEnum':
    case 'ZodNativeEnum':
      return { kind: 'leaf', acceptsNull: false };
    default:
      return { kind: 'refused', what: refused[def.typeName] ?? `a zod "${def.typeName}" schema` };
  }
}
