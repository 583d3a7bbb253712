/**
 * `npm run bench`: every scenario, each side by side with its baseline, then the table.
 *
 * The options are in `USAGE` below (`npm run bench -- --help` prints them).
 *
 * The script first compiles the sources and the benchmarks with tsc (`tsconfig.bench.json`, into
 * `.bench-build/`) and runs the JavaScript, as a user of the package runs it: a TypeScript loader
 * would add its own work to every function our side creates (tsx keeps function names with a
 * helper call each), which the SDK's JavaScript on the other side does not pay. It runs node with
 * --expose-gc, which the heap measures of scenario 3 need. Each scenario runs in a child process
 * of its own (same node flags), and the parent gathers the rows.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasGc } from './harness.js';
import { describeMachine, machineInfo } from './machine.js';
import { mergeRuns } from './merge-runs.js';
import { formatTable, type Row } from './report.js';
import { executorScenario } from './scenarios/executor.js';
import { mcpHttpScenario } from './scenarios/mcp-http.js';
import { mcpMemoryScenario } from './scenarios/mcp-memory.js';
import { progressScenario } from './scenarios/progress.js';
import { scaleScenario } from './scenarios/scale.js';
import type { Scale } from './scenarios/scale-options.js';
import { typedCallScenario } from './scenarios/typed-call.js';
import { bundleSizeScenario } from './scenarios/bundle-size.js';
import { scaleOutScenario } from './scenarios/scale-out.js';
import { tasksScenario } from './scenarios/tasks.js';
import { fleetScenario } from './scenarios/fleet.js';
import { telemetryScenario } from './scenarios/telemetry.js';
import { modelLoopScenario } from './scenarios/model-loop.js';
import { runCommandScenario } from './scenarios/run-command.js';
import { coldStartScenario } from './scenarios/cold-start.js';
import { stopChildrenWithProcess } from './scenario-children.js';

const SCENARIOS: readonly [string, (scale: Scale) => Promise<Row[]>][] = [
  ['executor overhead', executorScenario],
  ['typed call overhead', typedCallScenario],
  ['scheduling at scale', scaleScenario],
  ['progress throughput', progressScenario],
  ['MCP in memory', mcpMemoryScenario],
  ['MCP over Streamable HTTP', mcpHttpScenario],
  ['bundle size', bundleSizeScenario],
  ['scaling out behind nginx', scaleOutScenario],
  ['MCP tasks', tasksScenario],
  ['worker fleet', fleetScenario],
  ['telemetry', telemetryScenario],
  ['agenttool run at scale', runCommandScenario],
  ['model loop', modelLoopScenario],
  ['cold start', coldStartScenario],
];

/** What `npm run bench -- --help` prints. */
const USAGE = `usage: npm run bench [-- options]

  npm run bench                          all fourteen scenarios, the table on stdout
  npm run bench -- --json                the table as JSON on stdout (progress on stderr)
  npm run bench -- --json=results.json   the table on stdout and as JSON in a file
  npm run bench -- --only=1,2            some scenarios only
  npm run bench -- --http-seconds=4      seconds each HTTP side runs (default 10)
  npm run bench -- --quick               a tenth of the calls and few rounds: a smoke test
  npm run bench -- --runs=3              each scenario three times: per row the median run and
                                         the range of the ratio over the runs
  npm run bench -- --help                this text

scenarios:
${SCENARIOS.map(([title], index) => `  ${index + 1}. ${title}`).join('\n')}
`;

function option(name: string): string | undefined {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1]?.startsWith('--') === false ? args[i + 1] : '';
    if (args[i].startsWith(`--${name}=`)) return args[i].slice(name.length + 3);
  }
  return undefined;
}

if (option('help') !== undefined) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const json = option('json');
const quick = option('quick') !== undefined;
const only = option('only');
const child = option('child');
const httpSeconds = Number(option('http-seconds') ?? (quick ? 2 : 10));
if (!(httpSeconds > 0)) throw new Error('--http-seconds must be a positive number');
const runs = Number(option('runs') ?? 1);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const selected =
  only === undefined || only === '' ? undefined : new Set(only.split(',').map(Number));

const scale: Scale = quick
  ? { size: 0.1, rounds: (full) => Math.min(full, 3), httpSeconds }
  : { size: 1, rounds: (full) => full, httpSeconds };

/**
 * Each scenario runs in a process of its own: what one scenario leaves behind (call sites the JIT
 * has seen with other shapes, a grown heap) must not be billed to the next.
 */
function runChild(index: number): Promise<Row[]> {
  const args = [...process.execArgv, fileURLToPath(import.meta.url), `--child=${index}`];
  if (quick) args.push('--quick');
  args.push(`--http-seconds=${httpSeconds}`);
  const spawned = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  spawned.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    spawned.on('error', reject);
    spawned.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`scenario ${index} exited with ${code}`));
      resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Row[]);
    });
  });
}

if (child !== undefined) {
  stopChildrenWithProcess();
  const rows = await SCENARIOS[Number(child) - 1][1](scale);
  process.stdout.write(JSON.stringify(rows));
  process.exit(0);
}

// With --json alone the JSON owns stdout; everything else goes to stderr.
const out = json === '' ? process.stderr : process.stdout;
const say = (text: string) => out.write(`${text}\n`);

const machine = machineInfo();
say(`machine: ${describeMachine(machine)}`);
if (!hasGc) say('note: run without --expose-gc; the heap measures are skipped');

const rows: Row[] = [];
const started = performance.now();
for (const [index, [title]] of SCENARIOS.entries()) {
  if (selected !== undefined && !selected.has(index + 1)) continue;
  const t0 = performance.now();
  out.write(`${index + 1}. ${title} ... `);
  const each: Row[][] = [];
  for (let run = 0; run < runs; run++) each.push(await runChild(index + 1));
  rows.push(...mergeRuns(each));
  say(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const seconds = (performance.now() - started) / 1000;

const misses = rows.filter((r) => r.verdict === 'MISS').length;
const passes = rows.filter((r) => r.verdict === 'PASS').length;
const summary = `${passes} targets met, ${misses} missed, in ${seconds.toFixed(0)} s`;
const document = { machine, quick, httpSeconds, runs, seconds, rows };
if (json === '') {
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  say(summary);
} else {
  say('');
  say(formatTable(rows));
  say('');
  say(summary);
  if (json !== undefined) writeFileSync(json, `${JSON.stringify(document, null, 2)}\n`);
}
