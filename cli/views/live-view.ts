/**
 * The live terminal view: one line per call, redrawn in place at most ten times a second, with
 * state, progress bar or last message, elapsed time and resource chains.
 */
import type { BatchState } from '../call-state.js';
import { renderRow } from './format.js';
import { visible } from './visible.js';
import type { BatchView } from './view.js';

const FRAME_MS = 100;

export class LiveView implements BatchView {
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private state: BatchState | undefined;
  private readonly began = Date.now();
  private held = false;

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
    const nameWidth = Math.min(32, Math.max(...state.rows.map((r) => visible(r.name).length)));
    const lines = state.rows.map((row) => renderRow(row, now, nameWidth, width));
    this.out.write(`${this.erase()}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}
