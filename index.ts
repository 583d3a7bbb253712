/**
 * agenttool: the tool contract (lib/) and the execution engine (operators/).
 *
 * This is the entry Node and server bundles load; it registers zod 3 support (see
 * {@link registerZod3}). Browser bundles load `browser.ts` instead, the same names without that.
 *
 * @module agenttool
 */
import { registerZod3 } from './lib/schema/zod3.js';

registerZod3();

export * from './lib/index.js';
export * from './operators/index.js';
