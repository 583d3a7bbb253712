/**
 * Plain lines for a log or a pipe: a line when a call starts, reports progress, and ends. Line
 * breaks become spaces and other control characters escapes (see {@link visible}): one event is
 * one line, and nothing a tool prints reaches the terminal as a control sequence.
 */
import type { BatchAction, BatchState } from '../call-state.js';
import { chainNote, progressBar, seconds } from './format.js';
import type { BatchView } from './view.js';
import { visible } from './visible.js';

export class PlainView implements BatchView {
  constructor(private readonly out: NodeJS.WritableStream) {}

  update(state: BatchState, action: BatchAction): void {
    if (action.type === 'end') return;
    const index = action.type === 'start' ? action.index : action.event.index;
    const row = state.rows[index];
    if (row === undefined) return;
    const head = `[${seconds(action.at).padStart(6)}] #${row.index} ${row.name}`;
    let line: string;
    if (action.type === 'start') {
      const chain = chainNote(row);
      line = `${head} started${chain === '' ? '' : ` (${chain})`}`;
    } else if (!action.event.final) {
      line = `${head} ${[progressBar(row), row.message].filter((p) => p !== '').join(' ')}`;
    } else {
      const took =
        row.startedAt < 0 ? 'before it started' : `in ${seconds(row.endedAt - row.startedAt)}`;
      line = `${head} ${row.phase} ${took}: ${row.message}`;
    }
    this.out.write(`${visible(line.replace(/[\r\n]+/g, ' '), '\t')}\n`);
  }

  finish(): void {}

  pause(): void {}

  resume(): void {}

  notice(line: string): void {
    this.out.write(`${visible(line.replace(/[\r\n]+/g, ' '), '\t')}\n`);
  }
}
