/**
 * Schemas of any Standard Schema library (valibot, ArkType, ...; https://standardschema.dev) for
 * `tool()`: the JSON Schema comes from the library's own converter (Standard JSON Schema,
 * `~standard.jsonSchema`; for a bare valibot schema, `@valibot/to-json-schema` when installed)
 * and is made canonical as a zod schema's is, so the model reads the same bytes; the arguments are
 * checked against it first (the same one-line messages), then handed to the library's `validate`
 * for what JSON Schema cannot say (refinements, transforms).
 *
 * @module
 */
import { describeThrown, SchemaError, ValidationError } from '../errors.js';
import type { JsonSchema } from '../open-responses.js';
import type { Decoded, Decoder } from '../tool-arguments.js';
import { optionalModule } from '../optional-module.js';
import { schemaDepthProblem } from '../validation/json.js';
import { canonicalSchema } from './canonical.js';
import { setStandardCompiler } from './standard-support.js';

/**
 * A Standard Schema (v1, https://standardschema.dev), as much of it as `tool()` reads: valibot,
 * ArkType and other libraries' schemas are ones.
 */
export interface StandardSchemaLike {
  /** The library's interface. */
  readonly '~standard': StandardProps;
}

/** The members of a Standard Schema's `~standard`. */
export interface StandardProps {
  /** Always 1. */
  readonly version: 1;
  /** The library's name (`valibot`, `arktype`). */
  readonly vendor: string;
  /** Validates a value: its output, or its issues. */
  readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>;
  /** Standard JSON Schema: the JSON Schema of the input, when the library gives one. */
  readonly jsonSchema?: StandardJsonSchemaConverter;
  /** The input and output types, for inference only. */
  readonly types?: StandardTypes | undefined;
}

/** A Standard JSON Schema converter. */
export interface StandardJsonSchemaConverter {
  /** The JSON Schema of what the schema accepts, for a draft (`draft-2020-12`). */
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
}

/** A Standard Schema's types. */
export interface StandardTypes {
  /** What it accepts. */
  readonly input: unknown;
  /** What it gives. */
  readonly output: unknown;
}

/** What a Standard Schema's `validate` answers: the output, or the issues. */
export type StandardResult =
  | {
      /** The output. */
      readonly value: unknown;
      /** None. */
      readonly issues?: undefined;
    }
  | {
      /** What is wrong, first problem first. */
      readonly issues: readonly StandardIssue[];
    };

/** One problem a Standard Schema found. */
export interface StandardIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where: keys, or segments with a key. */
  readonly path?: readonly (PropertyKey | StandardPathSegment)[] | undefined;
}

/** A segment of an issue's path, as an object. */
export interface StandardPathSegment {
  /** The key. */
  readonly key: PropertyKey;
}

/** A Standard Schema compiled for a tool. */
export interface CompiledStandardSchema {
  /** The canonical JSON Schema the model reads. */
  readonly schema: JsonSchema;
  /** In strict mode, a null sent for an optional field made absent; undefined otherwise. */
  readonly prepare: ((value: unknown) => unknown) | undefined;
  /** The library's own validation of checked arguments: its output, or a ValidationError. */
  readonly decode: Decoder;
}

/**
 * JSON Schema converters for libraries whose schemas carry none, by vendor: the Node entry
 * registers valibot's (see {@link registerValibotConverter}); a browser bundle carries none.
 */
const converters = new Map<string, (schema: unknown, tool: string) => JsonSchema>();

/**
 * Has a bare valibot schema get its JSON Schema from `@valibot/to-json-schema`, when that is
 * installed (Node; the package root calls this). Without it, such a schema is refused, saying to
 * install it or to pass `toStandardJsonSchema(schema)`.
 */
export function registerValibotConverter(): void {
  converters.set('valibot', (schema, tool) => {
    const valibot = optionalModule('@valibot/to-json-schema') as
      { toJsonSchema(schema: unknown, config: { errorMode: 'ignore' }): JsonSchema } | undefined;
    if (valibot === undefined)
      throw new SchemaError(
        tool,
        'a valibot schema needs @valibot/to-json-schema for its JSON Schema: npm install @valibot/to-json-schema (or pass toStandardJsonSchema(schema))',
      );
    try {
      // Checks and transforms JSON Schema cannot say are left to valibot, as zod's are to zod.
      return valibot.toJsonSchema(schema, { errorMode: 'ignore' });
    } catch (err) {
      throw new SchemaError(
        tool,
        `the valibot schema gives no JSON Schema: ${describeThrown(err)}`,
      );
    }
  });
}

/** The JSON Schema the library gives for its schema's input. */
function generatedOf(schema: StandardSchemaLike, tool: string): JsonSchema {
  const standard = schema['~standard'];
  const convert = standard.jsonSchema?.input;
  if (typeof convert === 'function') {
    try {
      return convert({ target: 'draft-2020-12' });
    } catch (latest) {
      try {
        return convert({ target: 'draft-07' });
      } catch {
        throw new SchemaError(
          tool,
          `the ${standard.vendor} schema gives no JSON Schema: ${describeThrown(latest)}`,
        );
      }
    }
  }
  const converted = converters.get(standard.vendor)?.(schema, tool);
  if (converted !== undefined) return converted;
  throw new SchemaError(
    tool,
    `the ${standard.vendor} schema gives no JSON Schema (a Standard JSON Schema converter, ~standard.jsonSchema)`,
  );
}

/**
 * Lets `tool()` take Standard Schemas (valibot, ArkType, ...) for `parameters` and `outputSchema`;
 * calling it again changes nothing. Under Node, importing `agenttool` calls it; a browser bundle
 * (the package's `browser` export condition) does not, so that an app whose tools use zod carries
 * none of it: an app with valibot or ArkType schemas calls it once, before it builds a tool from
 * one. Without it, such a schema is refused with a SchemaError that names this function.
 */
export function registerStandardSchema(): void {
  setStandardCompiler(compileStandardSchema);
}

/**
 * Compiles a Standard Schema for a tool, once, at registration. Throws a SchemaError naming the
 * tool for a schema whose library gives no JSON Schema, a root that is not an object, or what the
 * canonical form refuses (a recursive schema; in strict mode, a record).
 */
export function compileStandardSchema(
  schema: StandardSchemaLike,
  options: { readonly strict: boolean; readonly tool: string },
): CompiledStandardSchema {
  const { strict, tool } = options;
  const generated = generatedOf(schema, tool);
  const tooDeep = schemaDepthProblem(generated);
  if (tooDeep !== undefined) throw new SchemaError(tool, tooDeep);
  const { $schema: _dialect, ...body } = generated;
  const json = canonicalSchema(body, { strict, tool });
  if (json.type !== 'object' || json.properties === undefined || 'anyOf' in json)
    throw new SchemaError(tool, 'tool parameters must be an object schema');
  const prepare = strict ? nullsDropped(canonicalSchema(body, { strict: false, tool })) : undefined;
  const validate = schema['~standard'].validate;
  const decode = (value: unknown): Decoded | Promise<Decoded> => {
    const result = validate(value);
    return result instanceof Promise ? result.then(decoded) : decoded(result);
  };
  return { schema: json, prepare, decode };
}

/** A Standard result as a decoded value, or its first issue as a one-line ValidationError. */
function decoded(result: StandardResult): Decoded {
  if (result.issues === undefined) return { success: true, data: result.value };
  const issue = result.issues[0];
  if (issue === undefined) return { success: false, error: new ValidationError('', 'invalid') };
  let path = '';
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    path += typeof key === 'number' ? `[${key}]` : path === '' ? String(key) : `.${String(key)}`;
  }
  const detail = issue.message.replace(/\s*[\r\n]+\s*/g, ' ').trim() || 'invalid';
  return { success: false, error: new ValidationError(path, detail) };
}

/**
 * Strict mode sends a null for an optional field the model leaves out: before the library sees
 * the arguments, such a null is made absent, as `tool()` does for zod schemas. `loose` is the
 * schema without the strict rules, where optional fields are those left out of `required`.
 */
function nullsDropped(loose: JsonSchema): (value: unknown) => unknown {
  const walk = (schema: JsonSchema, value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      const items = schema.items;
      if (typeof items === 'object' && items !== null)
        for (const item of value) walk(items as JsonSchema, item);
      return;
    }
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    if (properties === undefined) return;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(properties)) {
      if (!Object.hasOwn(record, key)) continue;
      if (record[key] === null && !required.has(key)) delete record[key];
      else walk(properties[key]!, record[key]);
    }
  };
  return (value) => {
    walk(loose, value);
    return value;
  };
}
