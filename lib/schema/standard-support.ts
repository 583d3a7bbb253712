/**
 * Where `tool()` compiles Standard Schemas (valibot, ArkType, ...), once support for them is
 * registered (see `registerStandardSchema`): a browser bundle whose tools use zod carries none of
 * it.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';
import type { CompiledStandardSchema, StandardSchemaLike } from './standard.js';

/** Compiles a Standard Schema for a tool. */
export type StandardCompiler = (
  schema: StandardSchemaLike,
  options: { readonly strict: boolean; readonly tool: string },
) => CompiledStandardSchema;

let compiler: StandardCompiler | undefined;

/** Makes `compile` the compiler of Standard Schemas. */
export function setStandardCompiler(compile: StandardCompiler): void {
  compiler = compile;
}

/** The registered compiler, or undefined when Standard Schema support is not registered. */
export function standardCompiler(): StandardCompiler | undefined {
  return compiler;
}

/** Whether `value` is a Standard Schema (v1): an object whose `~standard` has `validate`. */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const standard = (value as { '~standard'?: { version?: unknown; validate?: unknown } })[
    '~standard'
  ];
  return (
    typeof standard === 'object' &&
    standard !== null &&
    standard.version === 1 &&
    typeof standard.validate === 'function'
  );
}

/** A JSON Schema, for the types that name one. */
export type { JsonSchema };
