/**
 * The schema checker `tool()` uses: agenttool's interpreter, or ajv's generated code once the
 * Node entry has registered ajv and this environment lets code be generated. Browser bundles
 * never register it, so they carry no ajv and never try `new Function`.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';
import type { PatternEngine } from './compile.js';
import { codeGenerationAllowed } from './code-generation.js';
import { interpretSchema } from './interpreter/index.js';
import type { SchemaChecker } from './schema-checker.js';

type CheckerFactory = (
  schema: JsonSchema | undefined,
  tool: string,
  patterns: PatternEngine,
) => SchemaChecker;

let generated: CheckerFactory | undefined;

/** Makes `factory` (ajv's) the checker of tools built from now on, where eval is allowed. */
export function setGeneratedChecker(factory: CheckerFactory): void {
  generated = factory;
}

/**
 * The registered generator of checkers (ajv's), for `compileValidator({ codeGeneration: true })`;
 * without one (a browser bundle), an Error naming `registerAjv`.
 */
export function generatedChecker(tool: string): CheckerFactory {
  if (generated === undefined)
    throw new Error(
      `${tool === '' ? 'compileValidator' : `tool "${tool}"`}: codeGeneration needs ajv: call registerAjv() from 'agenttool/schema' first (the Node entry does)`,
    );
  return generated;
}

/** The checker for a tool's schema: generated code when registered and allowed, else interpreted. */
export function toolChecker(
  schema: JsonSchema | undefined,
  tool: string,
  patterns: PatternEngine,
): SchemaChecker {
  return generated !== undefined && codeGenerationAllowed()
    ? generated(schema, tool, patterns)
    : interpretSchema(schema, tool, patterns);
}
