/**
 * A view of one zod schema node that does not depend on the zod major version, so that the checks
 * made at registration (refusals, recursion) and the per-call `prepare` step are written once for
 * zod 4 and zod 3.
 *
 * @module
 */

/** One property of an object schema. */
export interface SchemaField {
  readonly key: string;
  readonly schema: unknown;
  /** The property may be left out: it is not in the generated `required` list. */
  readonly optional: boolean;
}

/**
 * What a zod schema node is, as far as the JSON the model writes is concerned (the input side of
 * pipes and transforms). Child schemas are left as the zod values they are, read on demand.
 */
export type SchemaNode =
  | {
      readonly kind: 'object';
      readonly fields: readonly SchemaField[];
      /** The schema of undeclared properties, or undefined when they are stripped or refused. */
      readonly catchall: unknown;
    }
  | { readonly kind: 'array'; readonly element: unknown }
  | { readonly kind: 'tuple'; readonly items: readonly unknown[]; readonly rest: unknown }
  | { readonly kind: 'record'; readonly value: unknown }
  | {
      readonly kind: 'union';
      readonly options: readonly unknown[];
      /** For a discriminated union: the property and the option each of its values selects. */
      readonly discriminator:
        { readonly key: string; readonly options: ReadonlyMap<unknown, unknown> } | undefined;
    }
  | { readonly kind: 'intersection'; readonly left: unknown; readonly right: unknown }
  /** A node that only adds to another (optional, nullable, default, catch, readonly, brand, pipe, lazy). */
  | { readonly kind: 'wrapper'; readonly inner: unknown; readonly nullable: boolean }
  | { readonly kind: 'date' }
  | { readonly kind: 'leaf'; readonly acceptsNull: boolean }
  /** A type JSON Schema cannot carry; `what` names it for the error ("a bigint"). */
  | { readonly kind: 'refused'; readonly what: string };

/** Reads one node of one zod major version. */
export type SchemaReader = (schema: unknown) => SchemaNode;

/** A zod schema's `safeParse`, the one member both major versions share. */
export interface SafeParsing {
  safeParse(value: unknown): { success: boolean };
}
