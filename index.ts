/**
 * agenttool: the tool contract (lib/) and the execution engine (operators/).
 *
 * This is the entry Node and server bundles load; it registers zod 3 support (see
 * {@link registerZod3}) and ajv for `tool()` where eval is allowed. Browser bundles load
 * `browser.ts` instead: the same names, without either.
 *
 * @module agenttool
 */
import { registerZod3 } from './lib/schema/zod3.js';
import { registerAjv } from './lib/validation/validation.js';

registerZod3();
registerAjv();

export * from './lib/index.js';
export * from './operators/index.js';
