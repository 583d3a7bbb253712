/**
 * The bundled example tools that `agenttool run` and `agenttool serve` offer: file reading and
 * listing (read-only, run alongside everything), `bash` (on the `shell:session` resource, so its
 * calls form a chain), `slow_count` (numeric progress) and `ask_user` (asks the person a question).
 */
import { askUser } from './ask-user.js';
import { bash } from './bash.js';
import { listDir, readFileTool } from './files.js';
import { slowCount } from './slow-count.js';

export { bash, ProcessGroup, reapShells } from './bash.js';
export { listDir, readFileTool } from './files.js';
export { slowCount } from './slow-count.js';
export { askUser } from './ask-user.js';

/** Every bundled tool, in the order a listing shows them. */
export const bundledTools = [readFileTool, listDir, bash, slowCount, askUser] as const;
