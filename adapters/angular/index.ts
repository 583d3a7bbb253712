/**
 * agenttool for Angular (`agenttool/angular`): a batch of tool calls as a resource. Needs
 * `@angular/core` (20 or later), an optional peer dependency of the package.
 *
 * @module
 */
export {
  toolBatchResource,
  type ToolBatchParams,
  type ToolBatchResource,
  type ToolBatchResourceOptions,
} from './tool-batch-resource.js';
export { tickElapsed, type TickElapsedOptions } from './tick-elapsed.js';
