/**
 * The project's TypeScript sources, as the packaging tests read them (import boundaries, file and
 * function sizes).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './cli.js';

/**
 * Every `.ts`/`.tsx` file at `path` (relative to the package root, a folder walked down or a
 * file), as paths relative to the root; node_modules left out.
 */
export function sourceFiles(path: string): string[] {
  if (!statSync(join(root, path)).isDirectory()) return /\.tsx?$/.test(path) ? [path] : [];
  return readdirSync(join(root, path)).flatMap((entry) =>
    entry === 'node_modules' ? [] : sourceFiles(join(path, entry)),
  );
}
