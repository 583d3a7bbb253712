/**
 * agenttool for browser bundles (the `browser` export condition of the package root): the same
 * names as the Node entry, registering none of its optional supports, so that each stays out of
 * the bundle unless the app calls it: `registerZod3()` (zod 3 schemas), `registerStandardSchema()`
 * (valibot, ArkType), `registerLinearPatterns()` (RE2), `registerOpenTelemetry(api)` (spans),
 * `registerSteps()` (`context.step`, docs/records.md).
 *
 * @module
 */
// The contract, and the engine's and the wire's values the guides use (root.ts).
export * from './root.js';
// The same names as the Node entry's, but importing what they register (zod-to-json-schema, RE2),
// which the Node entry loads at its first use.
export { registerZod3 } from './lib/schema/zod3-bundled.js';
export { registerLinearPatterns } from './lib/validation/linear-regexp-bundled.js';
