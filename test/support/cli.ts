import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from './reaper.js';
import { lastLines, scaled } from './time.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The nearest folder from `start` up that holds a package.json. */
function packageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/**
 * This file's source tree: the repository, or the folder `npm run bench` compiles it into
 * (`.bench-build/`), which then runs the compiled bin too.
 */
const tree = resolve(import.meta.dirname, '..', '..');
const compiled = import.meta.filename.endsWith('.js');

/** The repository's root (its package.json's folder), wherever this file runs from. */
export const root = packageRoot(tree);
export const everythingServer = `node ${resolve(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')} stdio`;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The node arguments that start the agenttool bin: the built one when `npm test` has just built
 * dist/ (AGENTTOOL_DIST_BUILT), as a user runs it and without a TypeScript loader's start-up per
 * process; the sources through tsx otherwise. Compiled itself (the benchmarks), the bin compiled
 * beside it.
 */
export function cliArgs(): string[] {
  if (compiled) return [resolve(tree, 'cli/main.js')];
  const built = resolve(root, 'dist/cli/main.js');
  return process.env.AGENTTOOL_DIST_BUILT === '1' && existsSync(built)
    ? [built]
    : ['--import', 'tsx', resolve(root, 'cli/main.ts')];
}

/** Starts the agenttool bin as a child process, the way a user runs it. */
export function startCli(
  args: string[],
  options: { stdin?: string; cwd?: string } = {},
): ChildProcess {
  const child = reaped(
    spawn(process.execPath, [...cliArgs(), ...args], {
      cwd: options.cwd ?? root,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, which the reaper kills whole (test/support/reaper.ts).
      detached: true,
    }),
  );
  child.stdin!.end(options.stdin ?? '');
  return child;
}

/** Collects a child's output until it exits. */
export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((done) => child.once('close', (status) => done({ status, stdout, stderr })));
}

/** Runs the bin to the end. */
export function runCli(
  args: string[],
  options: { stdin?: string; cwd?: string } = {},
): Promise<CliResult> {
  return finished(startCli(args, options));
}

/** A running `agenttool serve --http`: the child, its URL once it listens, its stderr so far. */
export interface ServingCli {
  readonly child: ChildProcess;
  readonly url: Promise<URL>;
  readonly done: Promise<CliResult>;
  stderr(): string;
}

/** Starts `agenttool serve --http 0 ...args`; `url` resolves once it says where it listens. */
export function serveCli(args: readonly string[], env: Record<string, string> = {}): ServingCli {
  const child = reaped(
    spawn(process.execPath, [...cliArgs(), 'serve', '--http', '0', ...args], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, which the reaper kills whole (test/support/reaper.ts).
      detached: true,
      env: { ...process.env, ...env },
    }),
  );
  child.stdin!.end();
  const done = finished(child);
  let text = '';
  const ceiling = scaled(20_000);
  const url = new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `agenttool serve did not say where it listens within ${ceiling} ms; last lines:\n${lastLines(text)}`,
          ),
        ),
      ceiling,
    );
    timer.unref();
    child.stderr!.on('data', (d: Buffer) => {
      text += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!));
      }
    });
    child.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`agenttool serve exited: ${text}`));
    });
  });
  url.catch(() => undefined);
  return { child, url, done, stderr: () => text };
}

/** A TypeScript script of the repository in a process of its own, and what it has printed. */
export interface ScriptProcess {
  readonly child: ChildProcess;
  /** Its stdout so far. */
  said(): string;
  /** Settles once it has exited. */
  readonly exited: Promise<unknown>;
}

/** Starts the script at `path` (from the repository's root) through tsx, with `args`. */
export function startScript(path: string, args: readonly string[]): ScriptProcess {
  const child = reaped(
    spawn(process.execPath, ['--import', 'tsx', resolve(root, path), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let said = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (said += d));
  const exited = new Promise((done) => child.once('exit', done));
  return { child, said: () => said, exited };
}
