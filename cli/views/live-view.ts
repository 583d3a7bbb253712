/**
 * The live terminal view: one line per call, redrawn in place at most ten times a second, with
 * state, progress bar or last message, elapsed time and resource chains. A batch with more calls
 * than the terminal has lines shows a screenful: the calls from the first one that has not ended,
 * and a line counting the others by phase (a frame's work is the screen's, not the batch's).
 *
 * Why not `log-update` (6.1.0, `createLogUpdate(stream)`): it would replace `erase()` and the count
 * of lines drawn, about 15 lines; the rows, the screenful, the notices above them and the pause
 * for a terminal form (cli/views/terminal-form.ts) stay here. It costs: five dependencies
 * (ansi-escapes, cli-cursor, slice-ansi, strip-ansi, wrap-ansi) and, in its own node_modules,
 * second copies of string-width, wrap-ansi, slice-ansi, ansi-styles and emoji-regex beside the
 * string-width this file uses; importing it took 200 ms against 25.8 ms for an empty module
 * (fastest of 10 fresh `node` processes each, a shared 2-core machine at load average 15), which
 * every `agenttool run` on a terminal would pay.
 */
import type { BatchState, CallPhase } from '../call-state.js';
import { renderRow } from './format.js';
import { visible } from './visible.js';
import type { BatchView } from './view.js';
import stringWidth from 'string-width';

const FRAME_MS = 100;

const PHASES: readonly CallPhase[] = [
  'done',
  'failed',
  'cancelled',
  'asking',
  'running',
  'approving',
  'waiting',
];

/**
 * `  … 4,990 more calls: 100 done, 4,890 waiting`: the calls of `state` outside `from`..`to`, from
 * the batch's phase counts less the rows on screen (a frame's work is the screen's).
 */
function others(state: BatchState, from: number, to: number): string {
  const count = { ...state.counts };
  for (let i = from; i < to; i++) count[state.rows[i]!.phase]--;
  const n = (value: number): string => value.toLocaleString('en-US');
  const phases = PHASES.filter((phase) => count[phase] > 0)
    .map((phase) => `${n(count[phase])} ${phase}`)
    .join(', ');
  return `  … ${n(state.rows.length - (to - from))} more calls: ${phases}`;
}

export class LiveView implements BatchView {
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private state: BatchState | undefined;
  private readonly began = Date.now();
  private held = false;
  /** No call before this one has still to end (an ended call stays ended). */
  private first = 0;

  constructor(private readonly out: NodeJS.WriteStream) {
    this.out.write('\x1b[?25l'); // hide the cursor while redrawing
    this.timer = setInterval(() => this.draw(), FRAME_MS);
  }

  update(state: BatchState): void {
    this.state = state;
  }

  finish(state: BatchState): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.state = state;
    this.held = false;
    this.draw();
    this.out.write('\x1b[?25h');
  }

  notice(line: string): void {
    this.out.write(`${this.erase()}${visible(line)}\n`);
    this.drawn = 0;
    this.draw();
  }

  pause(): void {
    this.held = true;
    this.out.write(`${this.erase()}\x1b[?25h`);
    this.drawn = 0;
  }

  resume(): void {
    if (!this.held) return;
    this.held = false;
    this.out.write('\x1b[?25l');
    this.draw();
  }

  /** Moves to the first row drawn and erases from there down. */
  private erase(): string {
    return `${this.drawn > 0 ? `\x1b[${this.drawn}A` : ''}\r\x1b[0J`;
  }

  private draw(): void {
    const state = this.state;
    if (state === undefined || this.held) return;
    const now = Date.now() - this.began;
    const width = Math.max(40, (this.out.columns || 100) - 1);
    const all = state.rows;
    const height = Math.max(3, (this.out.rows || 24) - 1);
    let from = 0;
    let to = all.length;
    if (all.length > height) {
      while (this.first < all.length && all[this.first]!.endedAt >= 0) this.first++;
      from = Math.min(this.first, all.length - (height - 1));
      to = from + height - 1;
    }
    const shown = all.slice(from, to);
    let nameWidth = 0;
    for (const row of shown) nameWidth = Math.max(nameWidth, stringWidth(visible(row.name)));
    const lines = shown.map((row) => renderRow(row, now, Math.min(32, nameWidth), width));
    if (to - from < all.length) lines.push(others(state, from, to));
    this.out.write(`${this.erase()}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}
