/**
 * agenttool: the tool contract (lib/) and the execution engine (operators/).
 *
 * @module agenttool
 */
export * from './lib/index.js';
export * from './operators/index.js';
