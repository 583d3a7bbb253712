/**
 * `npm run build:slim` (after scripts/strip-comments.ts): deletes the `.d.ts` files in dist/ that
 * no entry point's types reach. package.json's `exports` let no one import them, and TypeScript
 * loads only what an entry's declarations import, so they would be downloaded and never read
 * (the CLI's, and internal modules whose types no public one names).
 *
 * @module
 */
import { readFileSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

interface Manifest {
  types?: string;
  exports?: Record<string, string | { types?: string }>;
}

/** The `.d.ts` files package.json names at `root`: its `types` and each export's. */
export function typeEntries(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const targets = Object.values(manifest.exports ?? {}).map((target) =>
    typeof target === 'string' ? undefined : target.types,
  );
  return [manifest.types, ...targets]
    .filter((path): path is string => path !== undefined)
    .map((path) => resolve(root, path));
}

/** The declaration file a relative specifier in the declaration file `from` loads. */
function declarationOf(from: string, specifier: string): string {
  return resolve(dirname(from), specifier).replace(/(\.d\.ts|\.js|\.ts)?$/, '.d.ts');
}

/** Every `.d.ts` `entries` load, themselves included: their relative imports, followed. */
export function reachableTypes(entries: readonly string[]): Set<string> {
  const reached = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    // Static imports and re-exports, `import("…")` types and `/// <reference path>`.
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of [...info.importedFiles, ...info.referencedFiles])
      if (fileName.startsWith('.')) pending.push(declarationOf(file, fileName));
  }
  return reached;
}

/** Deletes the `.d.ts` under `root`/dist that no entry point reaches; returns how many. */
export async function pruneTypes(root: string): Promise<number> {
  const reached = reachableTypes(typeEntries(root));
  const entries = await readdir(join(root, 'dist'), { recursive: true, withFileTypes: true });
  const unreached = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !reached.has(file));
  for (const file of unreached) rmSync(file);
  return unreached.length;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
  const count = await pruneTypes(root);
  process.stdout.write(`${count} declaration files no entry point loads left out of dist/\n`);
}
