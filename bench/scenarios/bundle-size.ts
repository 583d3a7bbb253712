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

/**
 * The most an app may grow, min+gzip, by importing `tool` and `executeBatch`: what the test holds
 * it to (test/packaging/bundle-size.test.ts), so it grows no further: 32 KB, the 30 KB the engine and
 * `tool()` took and what counted resources, approvals' notes and edits, detached calls and the
 * step's refusal added (BENCHMARKS.md, The engine's floors).
 */
export const BUDGET = 32 * 1024;

/** What it should grow by at most: the bench's target, the gate itself. */
export const TARGET = BUDGET;

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

/** The most `connectMcp` may add, min+gzip, over the SDK's own client used by hand. */
export const MCP_CLIENT_BUDGET = 16 * 1024;

/** A page that runs batches and calls an MCP server's tool with the SDK's client by hand. */
function bySdk(engine: string): string {
  return `
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { executeBatch } from ${JSON.stringify(engine)};
export async function run(url, tool) {
  const client = new Client({ name: 'page', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  await client.callTool({ name: tools[0].name, arguments: {} });
  return executeBatch([{ tool, call: { id: 'a', args: '{}' } }]);
}`;
}

/** The same page calling the tool through `connectMcp`. */
function byConnectMcp(engine: string, client: string): string {
  return `
import { connectMcp, httpTransport } from ${JSON.stringify(client)};
import { executeBatch } from ${JSON.stringify(engine)};
export async function run(url) {
  const remote = await connectMcp(httpTransport(url));
  return executeBatch([{ tool: remote.tools[0], call: { id: 'a', args: '{}' } }]);
}`;
}

/**
 * What `connectMcp` adds to a page that runs batches, over the SDK's own client used by hand,
 * min+gzip; agenttool's entries from `engine` and `client` (sources or the built package).
 */
export async function mcpClientAdded(
  engine: string,
  client: string,
  resolveDir: string,
): Promise<{ sdk: number; ours: number; added: number }> {
  const build = (contents: string) =>
    bundle(contents, { stdin: { contents, resolveDir, loader: 'js' } });
  const [sdk, ours] = await Promise.all([
    build(bySdk(engine)),
    build(byConnectMcp(engine, client)),
  ]);
  return { sdk: sdk.gzipped, ours: ours.gzipped, added: ours.gzipped - sdk.gzipped };
}

/** Runs scenario 7 on the sources (the browser entry) and returns its row. */
export async function bundleSizeScenario(): Promise<Row[]> {
  const { base, app: withTools, added } = await addedBytes(resolve(root, 'browser.ts'), root);
  const mcp = await mcpClientAdded(
    resolve(root, 'browser.ts'),
    resolve(root, 'adapters/mcp-client/index.ts'),
    root,
  );
  return [
    row({
      scenario: 'bundle size',
      name: 'tool + executeBatch in a browser app, min+gzip',
      ours: { label: `added to ${(base / 1024).toFixed(0)} KB`, value: added / 1024, unit: 'KB' },
      target: { on: 'ours', max: TARGET / 1024, text: `<= ${TARGET / 1024} KB` },
      note: `zod + rxjs alone ${(base / 1024).toFixed(1)} KB, with agenttool ${(withTools / 1024).toFixed(1)} KB`,
    }),
    row({
      scenario: 'bundle size',
      name: 'connectMcp in a page that runs batches, over the SDK client by hand, min+gzip',
      ours: {
        label: `added to ${(mcp.sdk / 1024).toFixed(0)} KB`,
        value: mcp.added / 1024,
        unit: 'KB',
      },
      target: {
        on: 'ours',
        max: MCP_CLIENT_BUDGET / 1024,
        text: `<= ${MCP_CLIENT_BUDGET / 1024} KB`,
      },
      note: `SDK client by hand ${(mcp.sdk / 1024).toFixed(1)} KB, through connectMcp ${(mcp.ours / 1024).toFixed(1)} KB`,
    }),
  ];
}
