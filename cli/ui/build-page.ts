/**
 * `npm run build:ui [-- <dir>]`: writes the web front's page (index.html, app.css and the bundled
 * app.js) to dist/ui/, where the built package's `agenttool ui` reads it, or to `<dir>`.
 *
 * @module
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundlePage } from './page-assets.js';

const sources = new URL('./page/', import.meta.url);
const dir = process.argv[2];
const out =
  dir === undefined
    ? new URL('../../dist/ui/', import.meta.url)
    : pathToFileURL(`${resolve(dir)}/`);

await mkdir(out, { recursive: true });
await Promise.all([
  bundlePage().then((js) => writeFile(new URL('app.js', out), js)),
  copyFile(new URL('index.html', sources), new URL('index.html', out)),
  copyFile(new URL('app.css', sources), new URL('app.css', out)),
]);
process.stdout.write(`page written to ${fileURLToPath(out)}\n`);
