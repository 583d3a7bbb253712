/**
 * What the bundled tools are made with: `tool()` and the contract's registrations
 * (lib/node-support.ts), without the engine, so that `agenttool serve` answers `initialize`
 * without loading the engine's operators or the wire. Each tool imports it, so a tool imported
 * alone (as the tests and the bench do) is made as the bundle's are.
 *
 * @module
 */
import '../lib/node-support.js';

export { tool } from '../lib/tool.js';
