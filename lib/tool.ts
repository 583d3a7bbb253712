/**
 * `tool()`: a Tool from a zod-typed function.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { functionExecute, type ResultMapping } from './execution.js';
import type { JsonSchema } from './open-responses.js';
import { copyProperties, type ToolProperties } from './raw-tool.js';
import { toResult } from './result.js';
import type { AnyZodSchema } from './schema/schema.js';
import type { StandardSchemaLike } from './schema/standard.js';
import { SchemaError, ToolPanicError, ValidationError } from './errors.js';
import { compiledSchema, toolArguments } from './tool-arguments.js';
import { validatorOf, type ArgumentLimits } from './validation/argument-validator.js';
import { toolChecker } from './validation/tool-checker.js';
import type {
  Confinement,
  ProgressUpdate,
  ResourceFunction,
  ResourceName,
  Tool,
  ToolCall,
  ToolContext,
} from './contract.js';

/**
 * What a tool's function receives: zod's output type, a Standard Schema's output type, or a plain
 * object for a JSON Schema. Read from the schema's own type (zod 4's `_zod.output`, zod 3's
 * `_output`, a Standard Schema's `~standard.types.output`) rather than by matching classes, so a
 * schema of any zod 4 or zod 3 copy (`zod`, `zod/v3`, the standalone `zod@3` package), valibot,
 * ArkType or any Standard Schema library gives its arguments their types.
 */
export type ArgsOf<S> = S extends {
  /** zod 4's internals. */
  readonly _zod: {
    /** The schema's output type. */
    readonly output: infer Out;
  };
}
  ? Out
  : S extends {
        /** zod 3's output type. */
        readonly _output: infer Out;
        /** zod 3's definition. */
        readonly _def: unknown;
      }
    ? Out
    : S extends {
          /** A Standard Schema's types. */
          readonly '~standard': {
            /** Its input and output types. */
            readonly types?:
              | {
                  /** What the schema gives. */
                  readonly output: infer Out;
                }
              | undefined;
          };
        }
      ? Out
      : { [key: string]: unknown };

/**
 * `unknown` for a schema of an object, `never` for any other (a zod string, an array): a tool's
 * arguments are an object, and a schema of anything else does not typecheck as `parameters`.
 */
export type ObjectArguments<S> =
  ArgsOf<S> extends readonly unknown[] ? never : ArgsOf<S> extends object ? unknown : never;

/** What a tool's function may return: a value or a Promise of one, an async generator, an Observable. */
export type ToolReturn<Out> =
  Out | PromiseLike<Out> | AsyncGenerator<ProgressUpdate, Out, undefined> | Observable<Out>;

/** What {@link tool} is built from. */
export interface ToolDefinition<S, Out> extends Omit<ToolProperties, 'confined' | 'resource'> {
  /** The function name the model calls; not empty. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * The arguments' schema, an object schema: zod (v4, or v3 from `zod/v3` or the `zod@3` package),
   * any Standard Schema whose library gives a JSON Schema (ArkType; valibot, through
   * `@valibot/to-json-schema`), or a plain JSON Schema object served as given. Undefined means the
   * tool takes no arguments. A schema of anything but an object does not typecheck.
   */
  parameters?: S & ObjectArguments<S>;
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
  /**
   * The shared state a call touches (see {@link Tool.resource}), or a function naming it from the
   * call's validated, decoded arguments (`(args) => "file:" + args.path`), so calls touching the
   * same thing run in the model's order and the rest side by side. A call whose arguments do not
   * validate or decode, or whose function throws, fails with that error and never takes a turn.
   * The function needs synchronous decoding: with a schema that has async refinements, it fails
   * every call it is asked about. A counted resource (`{ key: "sandbox", capacity: 4 }`, see
   * {@link CountedResource}) lets up to `capacity` calls hold it at once; a fixed one with a
   * capacity that is not an integer >= 1 or Infinity is refused here, with a RangeError.
   */
  resource?: ResourceName | ((args: ArgsOf<S>) => ResourceName);
  /** Limits on the raw argument text (defaults: 1 MiB, nesting 256). */
  limits?: ArgumentLimits;
  /**
   * The shape of what the function returns, an object schema (zod, a Standard Schema, or a JSON
   * Schema): the tool lists it (`Tool.outputSchema`; MCP's `outputSchema`), each final value is
   * checked against it (a value that does not fit fails the call with a ToolPanicError naming
   * the first problem) and travels as data beside its JSON text (`ToolResult.structured`; MCP's
   * `structuredContent`).
   */
  outputSchema?: AnyZodSchema | StandardSchemaLike | JsonSchema;
}

/**
 * Builds a Tool from a typed function. The schema is generated once, here, and an argument schema
 * that cannot be expressed (recursive, a record under strict, a type JSON Schema has no word for) or
 * a JSON Schema that does not compile throws a SchemaError naming the tool, at registration rather
 * than at call time.
 *
 * Each call's arguments are validated against the schema the model saw (built once: in a browser
 * bundle by agenttool's JSON Schema interpreter, which generates no code and so works under a
 * Content-Security-Policy without `'unsafe-eval'`; under Node by ajv where eval is allowed; the
 * messages are the same) and then decoded by zod (defaults, transforms, refinements) before the
 * function runs; any problem ends the call with a one-line ValidationError the model can retry
 * on, and the function never runs. A zod schema whose JSON Schema accepts whatever zod accepts is
 * checked once on a call that passes (docs/tools.md), with the same messages. Under `strict`, a null the model sends for an optional field reaches the function as
 * undefined.
 *
 * The returned value decides what the model sees: a string is text; parts made with `parts()` or a
 * part helper are parts; a result made with `textResult`/`partsResult` is used as is; undefined is
 * empty text; anything else, plain arrays and objects included, is JSON text.
 *
 * @throws SchemaError for a schema that cannot be served; TypeError for an empty name or a
 *   missing execute.
 */
export function tool<
  S extends AnyZodSchema | StandardSchemaLike | JsonSchema | undefined = undefined,
  Out = unknown,
>(definition: ToolDefinition<S, Out>): Tool {
  const name = definition.name;
  if (typeof name !== 'string' || name === '')
    throw new TypeError('tool: name must be a non-empty string');
  if (typeof definition.execute !== 'function')
    throw new TypeError(`tool "${name}": execute must be a function`);
  const strict = definition.strict === true;
  const source = definition.parameters;
  const { parameters, argsOf, argsOfValue } = toolArguments(source, {
    strict,
    tool: name,
    limits: definition.limits,
  });

  const output = outputOf(definition.outputSchema, name);
  const mapping: ResultMapping = {
    tool: name,
    observableOfEvents: false,
    final:
      output === undefined
        ? (value) => toResult(value, name)
        : (value) => {
            output.check(value);
            return { ...toResult(value, name), structured: value as { [key: string]: unknown } };
          },
  };
  const fn = definition.execute;
  // One function per tool, not per call. The arguments are read from the call as given: the
  // context's `call` is a copy carrying the idempotency key, made only when someone reads it.
  const run = (inner: ToolContext, call: ToolCall): unknown => {
    const args = argsOf(call.args);
    return args instanceof Promise
      ? args.then((decoded) => fn.call(definition, decoded as ArgsOf<S>, inner))
      : fn.call(definition, args as ArgsOf<S>, inner);
  };
  const built: Tool = {
    name,
    description: definition.description ?? '',
    execute: functionExecute(mapping, run),
  };
  if (parameters !== undefined) Object.assign(built, { parameters });
  if (output !== undefined) Object.assign(built, { outputSchema: output.schema });
  const { confined, resource, ...rest } = definition;
  copyProperties(built, rest);
  if (typeof resource === 'string') {
    Object.assign(built, { resource });
  } else if (typeof resource === 'object' && resource !== null) {
    copyProperties(built, { resource });
  } else if (typeof resource === 'function') {
    // The engine hands over the arguments parsed from JSON; the author's function sees them
    // as `execute` does: checked against the schema, then decoded.
    const named: ResourceFunction = (json) => {
      const args = argsOfValue(json);
      if (args instanceof Promise) {
        args.catch(() => undefined);
        throw new TypeError(
          `tool "${name}": resource needs arguments decoded synchronously, and the schema has async refinements`,
        );
      }
      return resource.call(definition, args as ArgsOf<S>);
    };
    Object.assign(built, { resource: named });
  }
  if (confined !== undefined) built.confined = confinedOf(definition, confined, argsOf);
  selfChecking.add(built);
  return built;
}

const selfChecking = new WeakSet<Tool>();

/**
 * The built tool's `confined`: the definition's, asked with the call's arguments read as `execute`
 * reads them; not confined when they do not read.
 */
function confinedOf<S extends AnyZodSchema | StandardSchemaLike | JsonSchema | undefined, Out>(
  definition: ToolDefinition<S, Out>,
  confined: NonNullable<ToolDefinition<S, Out>['confined']>,
  argsOf: ReturnType<typeof toolArguments>['argsOf'],
): NonNullable<Tool['confined']> {
  return (raw, context) => {
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

/**
 * A declared output schema, made canonical (an object schema, as MCP requires), and the check of
 * a final value against it; undefined for none.
 */
function outputOf(
  source: AnyZodSchema | StandardSchemaLike | JsonSchema | undefined,
  tool: string,
): { schema: JsonSchema; check(value: unknown): void } | undefined {
  if (source === undefined) return undefined;
  const where = `${tool} (outputSchema)`;
  const schema = compiledSchema(source, false, where).schema;
  if (schema.type !== 'object')
    throw new SchemaError(where, 'an output schema must be an object schema ("type": "object")');
  const validator = validatorOf(toolChecker(schema, where, 'linear'), { tool: where });
  return {
    schema,
    check(value) {
      try {
        validator.check(value);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        const at = err.path === '' ? '' : `${err.path}: `;
        throw new ToolPanicError(
          tool,
          value,
          `its value does not match its outputSchema: ${at}${err.detail}`,
        );
      }
    },
  };
}

/**
 * Whether `tool` checks its own arguments against its `parameters` before it runs, as every tool
 * from `tool()` does (with the default limits unless it was given others). A runner that
 * would check them too, such as the MCP server, may leave that to the tool.
 */
export function checksOwnArguments(tool: Tool): boolean {
  return selfChecking.has(tool);
}
