/** Bundling with esbuild for the package's size and browser tests. */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { root } from './cli.js';

/** A bundle's size and what went into it. */
export interface Bundled {
  /** Minified bytes of all output files. */
  minified: number;
  /** Gzipped bytes (level 9) of all output files, each compressed alone. */
  gzipped: number;
  /** esbuild's record of the inputs (all it read) and outputs (what each holds). */
  metafile: Metafile;
}

/**
 * esbuild's build of `source` (an ES module's text, resolved from the repository root) for the
 * browser, as an app's bundler would: ESM, tree-shaken, `production` conditions, kept in memory.
 */
export function browserBuild(source: string, options: BuildOptions = {}) {
  return build({
    stdin: { contents: source, resolveDir: root, loader: 'ts', sourcefile: 'app.ts' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    ...options,
  });
}

/**
 * Bundles `source` (an ES module's text, resolved from the repository root) for the browser,
 * minified, as an app's bundler would: ESM, tree-shaken, `production` conditions. Throws with
 * esbuild's errors when it cannot be bundled (a Node built-in in a browser bundle, say).
 */
export async function bundle(source: string, options: BuildOptions = {}): Promise<Bundled> {
  const result = await browserBuild(source, { minify: true, metafile: true, ...options });
  let minified = 0;
  let gzipped = 0;
  for (const file of result.outputFiles ?? []) {
    minified += file.contents.length;
    gzipped += gzipSync(file.contents, { level: 9 }).length;
  }
  return { minified, gzipped, metafile: result.metafile! };
}
