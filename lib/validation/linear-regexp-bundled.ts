/**
 * `registerLinearPatterns` as the browser entry gives it: RE2 imported, so that a bundle that calls
 * it carries RE2 (under Node the same function loads it at the first pattern compiled).
 *
 * @module
 */
import { RE2JS } from 're2js';
import { provideRe2, registerLinearPatterns as register } from './linear-regexp.js';

/**
 * Matches the `pattern`s of JSON Schemas from elsewhere in linear time (RE2) under the
 * interpreter, the validation path of browsers. A browser app that validates schemas it did not
 * write calls it once (it adds RE2 to the bundle). Without it, a browser bundle runs patterns with
 * JavaScript's RegExp.
 */
export function registerLinearPatterns(): void {
  provideRe2(RE2JS);
  register();
}
