/**
 * The bundled example tools that `agenttool run` and `agenttool serve` offer: file reading and
 * listing (read-only, run alongside everything), `bash` (on the `shell:session` resource, so its
 * calls form a chain), `slow_count` (numeric progress), `ask_user` (asks the person a question in
 * a form) and `confirm_step` (asks the person to confirm a step).
 */
import { askUser } from './ask-user.js';
import { bash } from './bash.js';
import { confirmStep } from './confirm-step.js';
import { listDir, readFileTool } from './files.js';
import { slowCount } from './slow-count.js';

export { bash, ProcessGroup, reapShells } from './bash.js';
export { listDir, readFileTool } from './files.js';
export { slowCount } from './slow-count.js';
export { askUser } from './ask-user.js';
export { confirmStep } from './confirm-step.js';

/** Every bundled tool, in the order a listing shows them. */
export const bundledTools = [readFileTool, listDir, bash, slowCount, askUser, confirmStep] as const;
