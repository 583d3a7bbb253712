/**
 * Helpers for users' own marble tests: stub tools from cold observables, and builders for the
 * tool events they emit and the execution events the engine emits.
 *
 * @module agenttool/testing
 */
export {
  detachedEvent,
  errorEvent,
  final,
  finalEvent,
  progress,
  progressEvent,
  questionEvent,
  stubTool,
  type StubProperties,
  type StubSource,
} from './stub-tool.js';
