/**
 * `registerAjv` as `agenttool/schema` gives it: ajv, ajv-formats and RE2 imported, so that a
 * bundle that calls it carries them (the Node entry registers ajv itself and loads it at the first
 * schema compiled).
 *
 * @module
 */
import Ajv2020 from 'ajv/dist/2020.js';
import Ajv07 from 'ajv';
import { _ } from 'ajv/dist/compile/codegen/index.js';
import { useFunc } from 'ajv/dist/compile/util.js';
import { getSchemaTypes } from 'ajv/dist/compile/validate/dataType.js';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import { provideAjv } from './compile.js';
import { provideRe2 } from './linear-regexp.js';
import { registerAjv as register } from './validation.js';

/**
 * Lets `tool()` and `compileValidator` check arguments with ajv's generated code where eval is
 * allowed (faster than the interpreter, same messages). The Node entry of the package registers
 * ajv itself; a browser bundle does not (this adds ajv to it).
 */
export function registerAjv(): void {
  provideAjv({ Ajv2020, Ajv07, addFormats, _, useFunc, getSchemaTypes });
  // ajv matches patterns with RE2 (linear-regexp.ts), as it does under Node.
  provideRe2(RE2JS);
  register();
}
