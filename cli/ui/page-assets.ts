/**
 * The page the web front serves: its HTML, its stylesheet, and its script bundled with esbuild
 * (RxJS and the CLI's reducer included).
 *
 * Run from the sources (under tsx), the script is bundled in memory when the server starts, so it
 * is never stale and needs no build step. Run from the built package, where esbuild (a dev
 * dependency) may be absent, the files `npm run build` wrote to dist/ui/ are served.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The three files of the page. */
export interface PageAssets {
  html: string;
  css: string;
  js: string;
}

const pageSources = new URL('./page/', import.meta.url);
/** From dist/cli/ui/ in the built package. */
const builtPage = new URL('../../ui/', import.meta.url);

/** Bundles the page script (cli/ui/page/main.ts) in memory: one ES module for browsers. */
export async function bundlePage(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('main.ts', pageSources))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

let cached: Promise<PageAssets> | undefined;

/**
 * The page's files, read (and bundled) once per process. Rejects when neither the sources nor a
 * built page are there, saying to run `npm run build`.
 */
export function loadPageAssets(): Promise<PageAssets> {
  cached ??= load().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function load(): Promise<PageAssets> {
  const fromSources = existsSync(new URL('main.ts', pageSources));
  const dir = fromSources ? pageSources : builtPage;
  if (!fromSources && !existsSync(new URL('app.js', dir)))
    throw new Error(`the page is not built (no ${fileURLToPath(dir)}app.js): run "npm run build"`);
  const [html, css, js] = await Promise.all([
    readFile(new URL('index.html', dir), 'utf8'),
    readFile(new URL('app.css', dir), 'utf8'),
    fromSources ? bundlePage() : readFile(new URL('app.js', dir), 'utf8'),
  ]);
  return { html, css, js };
}
