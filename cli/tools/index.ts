/**
 * The bundled example tools that `agenttool run` and `agenttool serve` offer: file reading and
 * listing (read-only, run alongside everything), `bash` (on the `shell:session` resource, so its
 * calls form a chain), and `slow_count` (numeric progress).
 */
import { bash } from './bash.js';
import { listDir, readFileTool } from './files.js';
import { slowCount } from './slow-count.js';

export { bash, ProcessGroup, reapShells } from './bash.js';
export { listDir, readFileTool } from './files.js';
export { slowCount } from './slow-count.js';

/** Every bundled tool, in the order a listing shows them. */
export const bundledTools = [readFileTool, listDir, bash, slowCount] as const;
