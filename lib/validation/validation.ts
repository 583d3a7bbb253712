/**
 * Argument validation: raw JSON text in, a checked value out, or a ValidationError phrased for the
 * model.
 *
 * Every failure is one line naming the first problem: `invalid arguments: <path>: <problem>`, no
 * path at the root. Paths dot identifier-like keys and bracket array indexes (`a.b[2]`); any other
 * key is bracketed and JSON-quoted (`a["we ird"]`, `["0"]`), so a path never depends on guessing
 * which keys a reader will take for numbers. A missing or unexpected property is reported at the
 * path of the object holding it, with its name in the problem (`opts: missing required property
 * "x"`). Values read as JSON (`"mid"`, `1.5`, `null`, strings cut after 40 characters with `…`),
 * except objects and arrays, which read as `object` and `array`.
 *
 * An own `__proto__` key is refused wherever it appears (`a: property "__proto__" is not
 * allowed`). JSON.parse makes it a harmless own property, but `Object.assign` or a merge into
 * another object would hand it to the prototype setter; no tool argument needs the name.
 * `constructor` and `prototype` are ordinary keys: they are own data properties, checked by the
 * schema like any other, and copying them with assign, spread or structuredClone is safe.
 *
 * @module
 */
import type { JsonSchema } from '../open-responses.js';
import { validatorOf, type ArgumentLimits, type ArgumentValidator } from './argument-validator.js';
import { compileSchema, type PatternEngine, type SchemaCheck } from './compile.js';
import { interpretSchema } from './interpreter/index.js';
import { answersAlike, type SchemaChecker } from './schema-checker.js';
import { generatedChecker, setGeneratedChecker, toolChecker } from './tool-checker.js';

export { zodValidationError } from './zod.js';
export type { PatternEngine } from './compile.js';
export {
  DEFAULT_LIMITS,
  type ArgumentLimits,
  type ArgumentValidator,
} from './argument-validator.js';

/** Options of {@link compileValidator}. */
export interface ValidatorOptions {
  /** The tool named in a SchemaError. */
  tool?: string;
  /** Limits on the raw argument text (defaults: `DEFAULT_LIMITS`, from `agenttool/schema`). */
  limits?: ArgumentLimits;
  /**
   * Whether ajv generates code (`new Function`) for the schema. Default: as `tool()` chooses,
   * ajv where it is registered (the Node entry does it; elsewhere `registerAjv()`) and this
   * environment allows eval, tried once; otherwise the interpreter. A browser bundle registers
   * no ajv, so by default it neither carries ajv nor tries eval (no report under a
   * Content-Security-Policy). True asks for ajv (an Error without it registered); false for
   * agenttool's interpreter, with the same messages, nothing evaluated.
   */
  codeGeneration?: boolean;
  /** How `pattern`s are matched (default `linear`): see {@link PatternEngine}. */
  patterns?: PatternEngine;
}

/**
 * Compiles `schema` once (cached by its JSON text, so tools sharing a schema share the compiled
 * function); undefined means no arguments, which accepts any object, unknown properties included
 * (they are ignored, as outside strict mode). Throws a SchemaError naming `options.tool` for a
 * schema that does not compile, and a RangeError for a limit that is not a positive number.
 *
 * The schema is read as JSON Schema 2020-12, or draft-07 when its `$schema` names draft-04, 06 or
 * 07 (draft-04's boolean `exclusiveMinimum` is refused). Unknown keywords and formats are ignored;
 * the formats of ajv-formats (date-time, email, uri, uuid, ...) are checked. A property required
 * by the schema must be the object's own: `constructor` is not supplied by Object.prototype.
 * Numbers JSON cannot hold (1e400 parses as Infinity) fail a `number` or `integer` type.
 *
 * `pattern`s and `patternProperties` keys are matched in linear time by default (RE2, see
 * {@link PatternEngine}): a schema from elsewhere cannot block the process with a backtracking
 * pattern, and a pattern that needs backtracking (lookaround, backreferences) or that JavaScript
 * cannot compile under the `u` flag is a SchemaError. `patterns: 'native'` uses JavaScript's
 * RegExp instead, for schemas the author wrote (`tool()` does so for zod-made schemas, whose
 * patterns zod itself runs natively anyway). A pattern whose RE2 program passes 5,000
 * instructions is a SchemaError too.
 *
 * A schema nested deeper than 512 levels of objects and arrays is a SchemaError, found before
 * anything walks it. Each check of arguments has a work budget (see `work-budget.ts`): the `$ref`s
 * it follows and the matching its linear-time patterns may cost grow with the arguments' length,
 * and a check that would go past them throws a ValidationError (`invalid arguments: cannot be
 * checked: ...`) at once, so a schema whose work fans out (an `anyOf` of references to `anyOf`s)
 * cannot block the process.
 *
 * ajv generates a function for the schema where it is registered and code generation is
 * allowed; elsewhere (or with `codeGeneration: false`) agenttool's interpreter checks it, with the
 * same messages and the same pattern engine. Both resolve references inside the schema only,
 * and refuse with a SchemaError what neither checks rather than check it in part:
 * `unevaluatedProperties` and `unevaluatedItems` (but `true`), `$dynamicRef`, `$recursiveRef`,
 * an empty `enum`.
 *
 * ## Example
 * ```ts
 * const validator = compileValidator(
 *   { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
 *   { tool: 'read_file' },
 * );
 * validator.parse('{"path":"/etc/hosts"}'); // { path: '/etc/hosts' }
 * validator.parse('{"path":1}'); // throws: invalid arguments: path: expected string, got 1
 * ```
 */
export function compileValidator(
  schema: JsonSchema | undefined,
  options: ValidatorOptions = {},
): ArgumentValidator {
  const tool = options.tool ?? '';
  const patterns = options.patterns ?? 'linear';
  const generate = options.codeGeneration;
  // Left to choose, it chooses as tool() does: ajv's code only where the Node entry registered
  // it and eval works, which a browser bundle never asks (no probe, no CSP report, no ajv in it).
  const check =
    generate === undefined
      ? toolChecker(schema, tool, patterns)
      : generate
        ? generatedChecker(tool)(schema, tool, patterns)
        : interpretSchema(schema, tool, patterns);
  return validatorOf(check, { tool, limits: options.limits });
}

/**
 * ajv's validators for `schema` as a SchemaChecker. The schema is checked now by the interpreter,
 * which refuses what ajv would (see compile.ts), so a bad schema still throws here; ajv generates
 * its code at the first check, so that a process that defines tools (a server before its first
 * answer) does not pay for code generation, or for the meta-schema ajv compiles with its first
 * schema, until a call comes. Should ajv refuse a schema the interpreter took, the interpreter,
 * which answers with the same messages, goes on checking it.
 */
export function ajvChecker(
  schema: JsonSchema | undefined,
  tool: string,
  patterns: PatternEngine = 'linear',
): SchemaChecker {
  const interpreted = interpretSchema(schema, tool, patterns);
  // The schema as it is now: a caller mutating it later changes nothing (compileSchema reads its
  // JSON text, as this copy keeps it).
  const text = schema === undefined ? undefined : JSON.stringify(schema);
  let checker: SchemaChecker | undefined;
  const lazy: SchemaChecker = (value) => {
    if (checker === undefined) {
      let schemaCheck: SchemaCheck;
      try {
        schemaCheck = compileSchema(
          text === undefined ? undefined : (JSON.parse(text) as JsonSchema),
          tool,
          patterns,
        );
      } catch {
        checker = interpreted;
        return checker(value);
      }
      checker = (checked) => {
        const check = schemaCheck.current();
        return check(checked) ? undefined : (check.errors ?? []);
      };
    }
    return checker(value);
  };
  answersAlike.set(lazy, interpreted);
  return lazy;
}

/**
 * Lets `tool()` and `compileValidator` check arguments with ajv's generated code where eval is
 * allowed (faster than the interpreter, same messages). The Node entry of the package calls it,
 * and ajv is loaded at the first schema compiled (compile.ts); `registerAjv` from
 * `agenttool/schema` (ajv-bundled.ts) imports ajv and hands it over first, for bundles.
 */
export function registerAjv(): void {
  setGeneratedChecker(ajvChecker);
}
