/**
 * `tool()`: a Tool from a zod-typed function.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { callObservable, type ResultMapping } from './execution.js';
import type { JsonSchema } from './open-responses.js';
import { copyProperties, type ToolProperties } from './raw-tool.js';
import { toResult } from './result.js';
import { compileZodSchema, isZodSchema, type AnyZodSchema } from './schema/schema.js';
import { validatorOf, type ArgumentLimits } from './validation/argument-validator.js';
import { interpretSchema } from './validation/interpreter/index.js';
import { zodValidationError } from './validation/zod.js';
import type { Confinement, ProgressUpdate, Tool, ToolContext } from './contract.js';

/**
 * What a tool's function receives: zod's output type, or a plain object for a JSON Schema. Read
 * from the schema's own type (zod 4's `_zod.output`, zod 3's `_output`) rather than by matching
 * zod's classes, so a schema of any zod 4 or zod 3 copy (`zod`, `zod/v3`, the standalone `zod@3`
 * package) gives its arguments their types.
 */
export type ArgsOf<S> = S extends { readonly _zod: { readonly output: infer Out } }
  ? Out
  : S extends { readonly _output: infer Out; readonly _def: unknown }
    ? Out
    : { [key: string]: unknown };

/** What a tool's function may return: a value or a Promise of one, an async generator, an Observable. */
export type ToolReturn<Out> =
  Out | PromiseLike<Out> | AsyncGenerator<ProgressUpdate, Out, undefined> | Observable<Out>;

/** What {@link tool} is built from. */
export interface ToolDefinition<S, Out> extends Omit<ToolProperties, 'confined'> {
  /** The function name the model calls; not empty. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * A zod object schema (v4, or v3 from `zod/v3` or the `zod@3` package), or a plain JSON Schema object served as given.
   * Undefined means the tool takes no arguments.
   */
  parameters?: S;
  /**
   * Runs one call with its validated, decoded arguments. It may return the final value (or a
   * Promise of it); report progress through `context.progress`; be an async generator whose
   * `yield`s are progress and whose `return` is the final value; or return an Observable whose every
   * value is progress and whose last value is also the final one. A thrown error or a rejection is
   * the tool's failure.
   */
  execute(args: ArgsOf<S>, context: ToolContext): ToolReturn<Out>;
  /**
   * Whether a call with these arguments will run confined. It sees the decoded arguments; a call
   * whose arguments do not validate is reported not confined without asking.
   */
  confined?(args: ArgsOf<S>, context: ToolContext): Confinement;
  /** Limits on the raw argument text (defaults: 1 MiB, nesting 256). */
  limits?: ArgumentLimits;
}

type Decoded = { success: true; data: unknown } | { success: false; error: unknown };
type Decoder = (value: unknown) => Decoded | Promise<Decoded>;

/**
 * Builds a Tool from a typed function. The schema is generated once, here, and an argument schema
 * that cannot be expressed (recursive, a record under strict, a type JSON Schema has no word for) or
 * a JSON Schema that does not compile throws a SchemaError naming the tool, at registration rather
 * than at call time.
 *
 * Each call's arguments are validated against the schema the model saw (by agenttool's JSON Schema
 * interpreter, built once: no code generation, so it works under a Content-Security-Policy without
 * `'unsafe-eval'`; the messages are those of {@link compileValidator}) and then decoded by zod (defaults, transforms, refinements) before the function runs; any problem
 * ends the call with a one-line ValidationError the model can retry on, and the function never
 * runs. Under `strict`, a null the model sends for an optional field reaches the function as
 * undefined.
 *
 * The returned value decides what the model sees: a string is text; parts made with `parts()` or a
 * part helper are parts; a result made with `textResult`/`partsResult` is used as is; undefined is
 * empty text; anything else, plain arrays and objects included, is JSON text.
 *
 * @throws SchemaError for a schema that cannot be served; TypeError for an empty name or a
 *   missing execute.
 */
export function tool<S extends AnyZodSchema | JsonSchema | undefined = undefined, Out = unknown>(
  definition: ToolDefinition<S, Out>,
): Tool {
  const name = definition.name;
  if (typeof name !== 'string' || name === '')
    throw new TypeError('tool: name must be a non-empty string');
  if (typeof definition.execute !== 'function')
    throw new TypeError(`tool "${name}": execute must be a function`);
  const strict = definition.strict === true;
  const source = definition.parameters;
  let parameters: JsonSchema | undefined;
  let prepare: ((value: unknown) => unknown) | undefined;
  let decode: Decoder | undefined;
  if (source !== undefined && isZodSchema(source)) {
    const compiled = compileZodSchema(source, { strict, tool: name });
    parameters = compiled.schema;
    prepare = compiled.prepare;
    decode = decoderOf(source);
  } else if (source !== undefined) {
    parameters = source as JsonSchema;
  }
  // Interpreted, never generated code: works under a Content-Security-Policy without
  // 'unsafe-eval', and keeps ajv out of an app's bundle. The messages are compileValidator's.
  const validator = validatorOf(interpretSchema(parameters, name), {
    tool: name,
    limits: definition.limits,
  });

  const settle = (decoded: Decoded, input: unknown): unknown => {
    if (!decoded.success) throw zodValidationError(decoded.error, input);
    return decoded.data;
  };
  // The decoded arguments, or a Promise of them for a schema with async refinements.
  const argsOf = (raw: string): unknown => {
    let value = validator.parse(raw);
    if (prepare !== undefined) value = prepare(value);
    if (decode === undefined) return value;
    const decoded = decode(value);
    return decoded instanceof Promise
      ? decoded.then((settled) => settle(settled, value))
      : settle(decoded, value);
  };

  const mapping: ResultMapping = {
    tool: name,
    observableOfEvents: false,
    final: (value) => toResult(value, name),
  };
  const fn = definition.execute;
  // One function per tool, not per call: the call's arguments are read from its own context.
  const run = (inner: ToolContext): unknown => {
    const args = argsOf(inner.call.args);
    return args instanceof Promise
      ? args.then((decoded) => fn.call(definition, decoded as ArgsOf<S>, inner))
      : fn.call(definition, args as ArgsOf<S>, inner);
  };
  const built: Tool = {
    name,
    description: definition.description ?? '',
    execute: (call, context) => callObservable(call, context, mapping, run),
  };
  if (parameters !== undefined) Object.assign(built, { parameters });
  const { confined, ...rest } = definition;
  copyProperties(built, rest);
  if (confined !== undefined) {
    built.confined = (raw, context) => {
      let args: unknown;
      try {
        args = argsOf(raw);
      } catch {
        return { confined: false, by: '' };
      }
      // Asynchronous decoding cannot answer a synchronous question: not confined is the safe answer.
      if (args instanceof Promise) {
        args.catch(() => undefined);
        return { confined: false, by: '' };
      }
      return confined.call(definition, args as ArgsOf<S>, context);
    };
  }
  selfChecking.add(built);
  return built;
}

const selfChecking = new WeakSet<Tool>();

/**
 * Whether `tool` checks its own arguments against its `parameters` before it runs, as every tool
 * from `tool()` does (with the default limits unless it was given others). A runner that
 * would check them too, such as the MCP server, may leave that to the tool.
 */
export function checksOwnArguments(tool: Tool): boolean {
  return selfChecking.has(tool);
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
