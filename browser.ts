/**
 * agenttool for browser bundles (the `browser` export condition of the package root): the same
 * names as the Node entry, without registering zod 3 support, so that zod 3 and
 * zod-to-json-schema stay out of the bundle unless the app calls `registerZod3()`.
 *
 * @module
 */
export * from './lib/index.js';
export * from './operators/index.js';
