/**
 * How `tool()` reads a call's arguments: the raw text checked and parsed, checked against the
 * JSON Schema the model read, then decoded (zod's parse, a Standard Schema's validate), with every
 * problem one ValidationError the model can retry on.
 *
 * Under Node (the package's Node entry registers it), a zod schema whose JSON Schema accepts every
 * value zod accepts (see `decodesOnce`) is checked once on a call that passes: zod decodes it
 * straight away, and only a call zod refuses is then checked against the JSON Schema, so its
 * message is the one the two checks in turn give.
 *
 * @module
 */
import { SchemaError, ValidationError } from './errors.js';
import type { JsonSchema } from './open-responses.js';
import { compileZodSchema, isZodSchema, type AnyZodSchema } from './schema/schema.js';
import type { StandardSchemaLike } from './schema/standard.js';
import { isStandardSchema, standardCompiler } from './schema/standard-support.js';
import {
  validatorOf,
  type ArgumentLimits,
  type ArgumentValidator,
} from './validation/argument-validator.js';
import { toolChecker } from './validation/tool-checker.js';
import { zodValidationError } from './validation/zod.js';

/**
 * What reads a qualifying schema's calls with one check (see lib/schema/decode-once.ts): their
 * `argsOf`. A resource function's arguments, read from a value, are checked twice.
 */
export type OnceReader = (source: unknown, parts: OnceParts) => ToolArguments['argsOf'] | undefined;

/** What {@link OnceReader} reads calls with: the two checks' pieces. */
export interface OnceParts {
  readonly strict: boolean;
  readonly validator: ArgumentValidator;
  readonly prepare: ((value: unknown) => unknown) | undefined;
  /** Undefined for a JSON Schema, which has nothing to decode with. */
  readonly decode: Decoder | undefined;
  /** The decoded arguments, or the ValidationError of a decoding that failed on `input`. */
  settle(decoded: Decoded, input: unknown): unknown;
  /** Both checks in turn, on a value parsed from text `size` characters long. */
  twice(value: unknown, size?: number): unknown;
}

/**
 * The reader of schemas checked once, once registered: the Node entry registers it (index.ts); a
 * browser bundle, which does not, checks every call twice and stays smaller.
 */
let onceReader: OnceReader | undefined;

/** Registers {@link OnceReader} (undefined: every call is checked twice). */
export function registerDecodeOnce(reader: OnceReader | undefined): void {
  onceReader = reader;
}

/** A decoding's outcome, as zod's safeParse gives it. */
export type Decoded = { success: true; data: unknown } | { success: false; error: unknown };
/** A schema's decoding of checked arguments. */
export type Decoder = (value: unknown) => Decoded | Promise<Decoded>;

/** A tool's arguments schema, compiled once: what the model reads and how each call is read. */
export interface ToolArguments {
  /** The JSON Schema the model reads; undefined for a tool without arguments. */
  readonly parameters: JsonSchema | undefined;
  /** A call's decoded arguments from its raw text, or a Promise of them (async refinements). */
  argsOf(raw: string): unknown;
  /** The same from a value already parsed from JSON (a resource function's arguments). */
  argsOfValue(value: unknown): unknown;
}

/** Options of {@link toolArguments}. */
export interface ToolArgumentsOptions {
  readonly strict: boolean;
  /** The tool's name, for SchemaErrors. */
  readonly tool: string;
  readonly limits?: ArgumentLimits | undefined;
}

/** Compiles `source` (undefined: no arguments) for {@link ToolArguments}. */
export function toolArguments(
  source: AnyZodSchema | StandardSchemaLike | JsonSchema | undefined,
  options: ToolArgumentsOptions,
): ToolArguments {
  const { strict, tool } = options;
  const compiled = source === undefined ? undefined : compiledSchema(source, strict, tool);
  const parameters = compiled?.schema;
  const prepare = compiled?.prepare;
  const decode = compiled?.decode;
  // Interpreted in browsers (no eval, no ajv in the bundle); ajv's code under Node where allowed.
  // The messages are the same either way. A zod-made schema's patterns are the author's, and zod
  // runs them natively when it decodes; a JSON Schema's are matched in linear time.
  const patterns = decode === undefined ? 'linear' : 'native';
  const validator = validatorOf(toolChecker(parameters, tool, patterns), {
    tool,
    limits: options.limits,
  });

  const settle = (decoded: Decoded, input: unknown): unknown => {
    if (!decoded.success)
      throw decoded.error instanceof ValidationError
        ? decoded.error
        : zodValidationError(decoded.error, input);
    return decoded.data;
  };
  // The decoded arguments of a checked value, or a Promise of them for async refinements.
  const decodeChecked = (checked: unknown): unknown => {
    let value = checked;
    if (prepare !== undefined) value = prepare(value);
    if (decode === undefined) return value;
    const decoded = decode(value);
    return decoded instanceof Promise
      ? decoded.then((settled) => settle(settled, value))
      : settle(decoded, value);
  };
  const twice = (value: unknown, size?: number): unknown =>
    decodeChecked(validator.check(value, size));

  const faster = onceReader?.(source, { strict, validator, prepare, decode, settle, twice });
  return {
    parameters,
    argsOf: faster ?? ((raw) => decodeChecked(validator.parse(raw))),
    argsOfValue: twice,
  };
}

/**
 * A schema of any kind `tool()` takes, compiled once: the JSON Schema the model reads (canonical
 * for zod and Standard Schemas, as given for a JSON Schema), what prepares checked arguments, and
 * what decodes them (zod's parse, the library's validate; none for a JSON Schema). A Standard
 * Schema without Standard Schema support registered is refused, saying what to call.
 */
export function compiledSchema(
  source: AnyZodSchema | StandardSchemaLike | JsonSchema,
  strict: boolean,
  tool: string,
): { schema: JsonSchema; prepare: ((value: unknown) => unknown) | undefined; decode?: Decoder } {
  if (isZodSchema(source)) {
    const { schema, prepare } = compileZodSchema(source, { strict, tool });
    return { schema, prepare, decode: decoderOf(source) };
  }
  if (!isStandardSchema(source)) return { schema: source as JsonSchema, prepare: undefined };
  const compile = standardCompiler();
  if (compile === undefined)
    throw new SchemaError(
      tool,
      `a ${source['~standard'].vendor} schema needs Standard Schema support: call registerStandardSchema() from 'agenttool' first`,
    );
  return compile(source, { strict, tool });
}

/**
 * zod's synchronous parse, falling back to the asynchronous one for a schema with async
 * refinements (zod throws on those in a synchronous parse).
 */
function decoderOf(schema: AnyZodSchema): Decoder {
  const zod = schema as unknown as {
    safeParse(value: unknown): Decoded;
    safeParseAsync(value: unknown): Promise<Decoded>;
  };
  let async = false;
  return (value) => {
    if (async) return zod.safeParseAsync(value);
    try {
      return zod.safeParse(value);
    } catch (err) {
      // Both majors say "parseAsync" when a synchronous parse meets an async refinement.
      if (!(err instanceof Error) || !err.message.includes('parseAsync')) throw err;
      async = true;
      return zod.safeParseAsync(value);
    }
  };
}
