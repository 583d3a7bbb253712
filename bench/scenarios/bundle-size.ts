/**
 * Scenario 7, bundle size: what `tool` and `executeBatch` add (min+gzip) to a browser app that
 * already uses zod and rxjs, bundled by esbuild as an app's bundler would.
 *
 * @module
 */
import type { Metafile } from 'esbuild';
import { resolve } from 'node:path';
import { bundle } from '../../test/support/bundle.js';
import { root } from '../../test/support/cli.js';
import { row, type Row } from '../report.js';

/** The most an app may grow, min+gzip, by importing `tool` and `executeBatch`. */
export const BUDGET = 30 * 1024;

/** An app using zod and rxjs alone. */
const BASE = `
import { z } from 'zod';
import { from, map } from 'rxjs';
const parameters = z.object({ q: z.string().min(1) });
from([1, 2]).pipe(map((n) => parameters.safeParse({ q: String(n) }))).subscribe(console.log);
`;

/** The same app defining a zod tool and running a batch of calls, agenttool from `specifier`. */
function app(specifier: string): string {
  return `${BASE}
import { executeBatch, tool } from ${JSON.stringify(specifier)};
const search = tool({
  name: 'search',
  description: 'Search',
  parameters,
  execute: ({ q }) => q.toUpperCase(),
});
executeBatch([{ tool: search, call: { id: 'c1', args: '{"q":"x"}' } }]).subscribe(console.log);
`;
}

/** What the app adds over the base, min+gzip, and the modules that have code only in the app. */
export interface Added {
  base: number;
  app: number;
  added: number;
  modules: string[];
}

/**
 * Bundles both apps from `resolveDir`, agenttool imported as `specifier` (the package name where
 * it resolves to the built package, or the path of the browser entry's source).
 */
export async function addedBytes(specifier: string, resolveDir: string): Promise<Added> {
  const build = (contents: string) =>
    bundle(contents, { stdin: { contents, resolveDir, loader: 'ts' } });
  const [base, withTools] = await Promise.all([build(BASE), build(app(specifier))]);
  const inBase = new Set(included(base.metafile));
  return {
    base: base.gzipped,
    app: withTools.gzipped,
    added: withTools.gzipped - base.gzipped,
    modules: included(withTools.metafile).filter((path) => !inBase.has(path)),
  };
}

/** The modules that have code in a bundle (the metafile's inputs include dropped ones too). */
function included(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
}

/** Runs scenario 7 on the sources (the browser entry) and returns its row. */
export async function bundleSizeScenario(): Promise<Row[]> {
  const { base, app: withTools, added } = await addedBytes(resolve(root, 'browser.ts'), root);
  return [
    row({
      scenario: 'bundle size',
      name: 'tool + executeBatch in a browser app, min+gzip',
      ours: { label: `added to ${(base / 1024).toFixed(0)} KB`, value: added / 1024, unit: 'KB' },
      target: { on: 'ours', max: BUDGET / 1024, text: `<= ${BUDGET / 1024} KB` },
      note: `zod + rxjs alone ${(base / 1024).toFixed(1)} KB, with agenttool ${(withTools / 1024).toFixed(1)} KB`,
    }),
  ];
}
