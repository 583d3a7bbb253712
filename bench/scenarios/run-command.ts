/**
 * Scenario 12, `agenttool run` at scale: the command run on a turn of 10k calls and on one of 25k
 * calls of the bundled `slow_count` (one step, no pause: a timer, a progress event and a final
 * per call), each run a process of its own, as a user starts it. Twice: with its output piped
 * (the plain view, a line per event), and on a pseudo-terminal (`script` from util-linux) with
 * the live view redrawn ten times a second. The time of a run of 25k calls must stay within 3x
 * that of 10k (2.5x is linear): work per event or per frame that grows with the batch shows as a
 * ratio above that.
 *
 * A run's time is the child's CPU time (user and system, read from /proc once it has exited:
 * the wall clock of a run that waits on timers counts every moment another process held the
 * core), less that of a run of one call (the start-up, the same for both sizes). Where /proc
 * is missing the wall clock is used. The wall clock is shown too, without a target. The state the views draw from is also weighed: the heap one
 * folded call holds.
 *
 * @module
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from '../../index.js';
import { initialState, reduceBatch } from '../../cli/call-state.js';
import { slowCount } from '../../cli/tools/slow-count.js';
import { cliArgs, root } from '../../test/support/cli.js';
import { hasGc, median, settledHeap } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

/** CPU time this process's exited children took, in ms; undefined where /proc is missing. */
function childrenCpu(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // After the command's name (in parentheses, which may hold spaces): cutime and cstime are the
  // 14th and 15th fields, in ticks of 10 ms (USER_HZ is 100 on Linux).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** A word as a POSIX shell reads it back. */
function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A turn of `count` calls of `slow_count`, written to `dir`; returns its path. */
function writeTurn(dir: string, count: number): string {
  const items = Array.from({ length: count }, (_, i) => ({
    type: 'function_call',
    call_id: `call_${i}`,
    name: 'slow_count',
    arguments: '{"to":1,"step_ms":0}',
  }));
  const path = join(dir, `turn-${count}.json`);
  writeFileSync(path, JSON.stringify(items));
  return path;
}

/** How a run sees its terminal. */
type Terminal = 'pipe' | 'tty';

/** A run's time in ms: CPU time (the wall clock where /proc is missing), and the wall clock. */
interface RunTime {
  cpu: number;
  wall: number;
}

/** Runs `agenttool run turn` and times it. */
function runOnce(turn: string, terminal: Terminal): Promise<RunTime> {
  const command = [process.execPath, ...cliArgs(), 'run', turn];
  // On a terminal the live view draws on stderr; the output goes where `> out.json` sends it.
  const spawned =
    terminal === 'pipe'
      ? spawn(command[0]!, command.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('script', ['-qec', `${command.map(shellWord).join(' ')} >/dev/null`, '/dev/null'], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let stderr = '';
  spawned.stdout.resume();
  spawned.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const cpu = childrenCpu();
  const start = performance.now();
  return new Promise((resolve, reject) => {
    spawned.on('error', reject);
    spawned.on('exit', (code) => {
      const wall = performance.now() - start;
      if (code !== 0) return reject(new Error(`agenttool run exited with ${code}: ${stderr}`));
      const after = childrenCpu();
      resolve({ cpu: cpu === undefined || after === undefined ? wall : after - cpu, wall });
    });
  });
}

/** Whether `script` (util-linux) is here to give a run a pseudo-terminal. */
function hasScript(): boolean {
  return spawnSync('script', ['-qec', 'true', '/dev/null'], { stdio: 'ignore' }).status === 0;
}

/** The median time of each turn's runs, interleaved round by round, the first rotating. */
async function timeRuns(
  turns: readonly string[],
  terminal: Terminal,
  rounds: number,
): Promise<RunTime[]> {
  const times = turns.map(() => [] as RunTime[]);
  for (let round = 0; round < rounds + 1; round++)
    for (let k = 0; k < turns.length; k++) {
      const i = (round + k) % turns.length;
      const time = await runOnce(turns[i]!, terminal);
      if (round > 0) times[i]!.push(time); // the first round warms the file cache up
    }
  return times.map((runs) => ({
    cpu: median(runs.map((run) => run.cpu)),
    wall: median(runs.map((run) => run.wall)),
  }));
}

/** The heap one call's row holds once folded (started, one progress, done), as the CLI folds. */
function heapPerRow(count: number): number {
  const jobs: Job[] = Array.from({ length: count }, (_, i) => ({
    tool: slowCount,
    call: { id: `call_${i}`, args: '{"to":1,"step_ms":0}' },
  }));
  const before = settledHeap();
  const state = initialState(jobs);
  for (let i = 0; i < count; i++) {
    const callId = `call_${i}`;
    reduceBatch(state, { type: 'start', index: i, at: i });
    const details = { progress: 1, total: 1, message: 'counted 1 of 1' };
    const progress = { output: 'counted 1 of 1', details };
    reduceBatch(state, {
      type: 'event',
      at: i,
      event: { index: i, callId, final: false, result: progress },
    });
    reduceBatch(state, {
      type: 'event',
      at: i,
      event: { index: i, callId, final: true, result: { output: 'counted to 1' } },
    });
  }
  const heap = (settledHeap() - before) / count;
  if (state.counts.done !== count) throw new Error(`${state.counts.done} of ${count} calls done`);
  return heap;
}

/** Runs scenario 12 and returns its rows. */
export async function runCommandScenario(scale: Scale): Promise<Row[]> {
  const scenario = '12 agenttool run';
  const small = Math.round(10_000 * scale.size);
  const large = Math.round(25_000 * scale.size);
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-bench-run-'));
  // Weighed first, as the runs below leave garbage of their own that a collection would count;
  // and at the same size whatever the scale: folding is quick, and a small batch's share of
  // fixed overhead would pose as a cost per call.
  const folded = 25_000;
  const name = `heap per call of the views' state, ${folded / 1000}k calls folded`;
  const rows: Row[] = [];
  rows.push(
    hasGc
      ? row({
          scenario,
          name,
          ours: { label: 'heap', value: heapPerRow(folded), unit: 'B/call' },
          target: { on: 'ours', max: 300, text: '<= 300 B' },
        })
      : row({
          scenario,
          name: `${name} (needs --expose-gc)`,
          ours: { label: 'not measured', value: NaN, unit: 'B/call' },
        }),
  );
  try {
    const turns = [writeTurn(dir, 1), writeTurn(dir, small), writeTurn(dir, large)];
    const terminals: Terminal[] = hasScript() ? ['pipe', 'tty'] : ['pipe'];
    for (const terminal of terminals) {
      const [one, tenK, twentyFiveK] = await timeRuns(turns, terminal, scale.rounds(3));
      const view = terminal === 'pipe' ? 'output piped' : 'live view on a terminal';
      const sizes = `${large / 1000}k calls over ${small / 1000}k, ${view}`;
      rows.push(
        row({
          scenario,
          name: `${sizes}, CPU time less a run of one call (${one!.cpu.toFixed(0)} ms)`,
          ours: { label: `${large / 1000}k calls`, value: twentyFiveK!.cpu - one!.cpu, unit: 'ms' },
          baseline: { label: `${small / 1000}k calls`, value: tenK!.cpu - one!.cpu, unit: 'ms' },
          target: { on: 'ratio', max: 3, text: '<= 3x (2.5x linear)' },
        }),
        row({
          scenario,
          name: `${sizes}, wall clock less a run of one call (${one!.wall.toFixed(0)} ms)`,
          ours: {
            label: `${large / 1000}k calls`,
            value: twentyFiveK!.wall - one!.wall,
            unit: 'ms',
          },
          baseline: { label: `${small / 1000}k calls`, value: tenK!.wall - one!.wall, unit: 'ms' },
        }),
      );
    }
    if (terminals.length === 1)
      rows.push(
        row({
          scenario,
          name: 'live view on a terminal (needs script from util-linux)',
          ours: { label: 'not measured', value: NaN, unit: 'ms' },
        }),
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
