/**
 * Scenario 14, cold start: what a fresh process spends before its first answer. Two pairs, each
 * side a process of its own, the sides interleaved round by round so that a busy moment of the
 * machine falls on both:
 *
 * - `agenttool serve` (the package's bin, `dist/cli/main.js`) on stdio, up to its answer to
 *   `initialize`, against a minimal server of the MCP SDK v2 (`McpServer` of
 *   `@modelcontextprotocol/server` with one tool, on `StdioServerTransport`). A side's cost is
 *   the child's CPU time (user and system, read from /proc/<pid>/stat the moment the answer
 *   arrives, node's own start-up included; the wall clock where /proc is missing). Target: within
 *   1.3x. Beside it (no target), each side's cost up to its answer to the `tools/list` a client
 *   sends next, where `serve` has loaded the engine (cli/serve-bundled.ts).
 * - `import('agenttool')` (the built root entry) against `import('rxjs')` and `import('zod')`: the
 *   CPU time of the import alone (`process.cpuUsage()` around it, in the child). Target: within
 *   1.5x.
 *
 * Needs the build (`npm run build`): it measures `dist/` as the package ships it.
 *
 * @module
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../../test/support/cli.js';
import { median } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const SCENARIO = 'cold start';

/** The minimal SDK v2 server: one tool, on stdio. */
const SDK_SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
const server = new McpServer({ name: 'minimal', version: '1.0.0' });
server.registerTool('echo', { description: 'Echoes its text.', inputSchema: z.object({ text: z.string() }) },
  async ({ text }) => ({ content: [{ type: 'text', text }] }));
await server.connect(new StdioServerTransport());
`;

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1.0.0' },
  },
})}\n`;

/** CPU time (user and system) of a live process, in ms; undefined where /proc is missing. */
function cpuOf(pid: number): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return undefined;
  const stat = readFileSync(path, 'utf8');
  // After the command's name (in parentheses): utime and stime are the 12th and 13th fields, in
  // ticks of 10 ms (USER_HZ is 100 on Linux).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What a fresh server's first answers cost, in ms of its CPU time (the wall clock without /proc). */
interface FirstAnswers {
  /** Up to its answer to `initialize`. */
  readonly initialize: number;
  /** Up to its answer to the `tools/list` sent after that answer, as a client sends it. */
  readonly list: number;
}

const LIST = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`;

/**
 * Starts `args` under node and opens a session as a client does: `initialize`, then, once it is
 * answered, `notifications/initialized` and `tools/list`; the process's cost up to each answer.
 */
function firstAnswers(args: readonly string[]): Promise<FirstAnswers> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const cost = (): number => cpuOf(child.pid!) ?? performance.now() - started;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  return new Promise<FirstAnswers>((resolve, reject) => {
    let out = '';
    let initialize: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (initialize === undefined && out.includes('"id":1')) {
        initialize = cost();
        if (!out.includes('"result"')) reject(new Error(`initialize failed: ${out}`));
        child.stdin.write(LIST);
      }
      if (!out.includes('"id":2')) return;
      const list = cost();
      if (!out.includes('"tools"')) reject(new Error(`tools/list failed: ${out}`));
      else resolve({ initialize: initialize!, list });
      child.kill('SIGKILL');
    });
    child.on('exit', (code) => {
      if (!out.includes('"id":2'))
        reject(new Error(`exited with ${code} before answering: ${stderr}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

/** The CPU time, in ms, a fresh node spends on `specifiers`' imports, one after the other. */
function importCpu(specifiers: readonly string[]): number {
  const code = `const t = process.cpuUsage();
for (const s of ${JSON.stringify(specifiers)}) await import(s);
const d = process.cpuUsage(t);
process.stdout.write(String((d.user + d.system) / 1000));`;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
  });
  if (ran.status !== 0) throw new Error(`import failed: ${ran.stderr}`);
  return Number(ran.stdout);
}

export async function coldStartScenario(scale: Scale): Promise<Row[]> {
  const main = join(root, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error('cold start measures dist/: run `npm run build` first');
  const rounds = Math.max(5, scale.rounds(15));
  const serve: FirstAnswers[] = [];
  const sdk: FirstAnswers[] = [];
  const ours: number[] = [];
  const theirs: number[] = [];
  const entry = pathToFileURL(join(root, 'dist/index.js')).href;
  // A first round of each, not counted: the files into the page cache.
  await firstAnswers([main, 'serve']);
  await firstAnswers(['--input-type=module', '-e', SDK_SERVER]);
  importCpu([entry]);
  importCpu(['rxjs', 'zod']);
  for (let i = 0; i < rounds; i++) {
    const pair = [
      async () => serve.push(await firstAnswers([main, 'serve'])),
      async () => sdk.push(await firstAnswers(['--input-type=module', '-e', SDK_SERVER])),
    ];
    // Which side goes first alternates: no side always meets a machine the other warmed.
    for (const side of i % 2 === 0 ? pair : pair.reverse()) await side();
    const imports = [
      () => ours.push(importCpu([entry])),
      () => theirs.push(importCpu(['rxjs', 'zod'])),
    ];
    for (const side of i % 2 === 0 ? imports : imports.reverse()) side();
  }
  const procNote = existsSync('/proc/self/stat') ? 'CPU time' : 'wall clock (no /proc)';
  return [
    row({
      scenario: SCENARIO,
      name: 'serve on stdio: up to the initialize answer',
      ours: { label: 'agenttool serve', value: median(serve.map((s) => s.initialize)), unit: 'ms' },
      baseline: {
        label: 'SDK v2 McpServer, one tool',
        value: median(sdk.map((s) => s.initialize)),
        unit: 'ms',
      },
      target: { on: 'ratio', max: 1.3, text: '<= 1.3x' },
      note: `${procNote} of the child, median of ${rounds} fresh processes, node's start-up included; the engine is loaded at the first tools/list (next row)`,
    }),
    row({
      scenario: SCENARIO,
      name: 'serve on stdio: up to the first tools/list answer',
      ours: { label: 'agenttool serve', value: median(serve.map((s) => s.list)), unit: 'ms' },
      baseline: {
        label: 'SDK v2 McpServer, one tool',
        value: median(sdk.map((s) => s.list)),
        unit: 'ms',
      },
      note: 'the same processes, tools/list sent once initialize is answered: the engine and six tools against one tool',
    }),
    row({
      scenario: SCENARIO,
      name: 'import the root entry',
      ours: { label: "import('agenttool')", value: median(ours), unit: 'ms' },
      baseline: { label: "import('rxjs') + import('zod')", value: median(theirs), unit: 'ms' },
      target: { on: 'ratio', max: 1.5, text: '<= 1.5x' },
      note: `CPU time of the imports alone, median of ${rounds} fresh processes`,
    }),
  ];
}
