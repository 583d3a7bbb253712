/**
 * The bundled example tools that `agenttool run` and `agenttool serve` offer: file reading and
 * listing (read-only, run alongside everything), `bash` (on the `shell:session` resource, so its
 * calls form a chain), `slow_count` (numeric progress), and `confirm_step` (asks the person a
 * question).
 */
import { bash } from './bash.js';
import { confirmStep } from './confirm-step.js';
import { listDir, readFileTool } from './files.js';
import { slowCount } from './slow-count.js';

export { bash, ProcessGroup, reapShells } from './bash.js';
export { listDir, readFileTool } from './files.js';
export { slowCount } from './slow-count.js';
export { confirmStep } from './confirm-step.js';

/** Every bundled tool, in the order a listing shows them. */
export const bundledTools = [readFileTool, listDir, bash, slowCount, confirmStep] as const;
