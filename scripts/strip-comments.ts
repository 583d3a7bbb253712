/**
 * `npm run build:slim` (or `node --import tsx scripts/strip-comments.ts [<dir>]`): rewrites the
 * JavaScript `tsc` emitted to dist/ (or `<dir>`) without its comments, so the package does not
 * ship the sources' documentation twice: the `.d.ts` files keep it for editors, and nothing reads
 * it from the `.js`.
 *
 * esbuild reprints each file as it parsed it (no minifying, no syntax lowered), keeping the
 * comments a tool reads: legal ones (`/*!`, `@license`, `@preserve`), `@__PURE__` and
 * `@__NO_SIDE_EFFECTS__` annotations (it adds `@__PURE__` to a few calls it knows are pure, such
 * as `new Map()`), and `webpackIgnore` / `@vite-ignore` inside `import()`.
 * dist/ui/ is left as it is: `npm run build:ui` writes it bundled and minified.
 *
 * @module
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

/** `code` (an ES module) without the comments no tool reads; the same program otherwise. */
export async function stripComments(code: string): Promise<string> {
  const result = await transform(code, {
    loader: 'js',
    target: 'esnext',
    legalComments: 'inline',
    charset: 'utf8',
  });
  return result.code;
}

/** The `.js` files under `dir` that `tsc` wrote (dist/ui/, the bundled page, left out). */
export async function emittedScripts(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(dir, path).startsWith(`ui${sep}`));
}

/** Strips the comments of every `.js` file `tsc` wrote under `dir`, in place. */
export async function stripDist(dir: string): Promise<number> {
  const files = await emittedScripts(dir);
  await Promise.all(
    files.map(async (file) => writeFile(file, await stripComments(await readFile(file, 'utf8')))),
  );
  return files.length;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist/', import.meta.url)));
  const count = await stripDist(dir);
  process.stdout.write(`comments stripped from ${count} files in ${dir}\n`);
}
