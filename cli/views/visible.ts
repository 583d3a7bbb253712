/**
 * The terminal escapes of text from tools and servers, for the views: see `lib/visible.ts`, where
 * they live so that the adapters, which print a server's log lines, share them.
 *
 * @module
 */
export { terminalJson, visible } from '../../lib/visible.js';
