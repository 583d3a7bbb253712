/** Pieces of a one-line rendering of a call, shared by the terminal views. */
import type { CallRow } from '../call-state.js';
import { visible } from './visible.js';

const ICONS: Record<CallRow['phase'], string> = {
  waiting: '·',
  approving: '◇',
  running: '▸',
  asking: '?',
  done: '✓',
  failed: '✗',
  cancelled: '⊘',
};

/** Seconds with two decimals: `1.23s`. */
export function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(2)}s`;
}

/** A ten-cell bar and a percentage, or the bare count when there is no total. */
export function progressBar(row: CallRow): string {
  const info = row.progress;
  if (info === undefined) return '';
  if (info.total === undefined || !(info.total > 0)) return `(${info.progress})`;
  const ratio = Math.min(1, Math.max(0, info.progress / info.total));
  const filled = Math.round(ratio * 10);
  return `[${'█'.repeat(filled)}${'░'.repeat(10 - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%`;
}

/** How long the call has run (or ran), at `now` ms since the batch started. */
export function elapsed(row: CallRow, now: number): string {
  if (row.startedAt < 0) return '';
  return seconds((row.endedAt >= 0 ? row.endedAt : now) - row.startedAt);
}

/** The chain a call is in, when it shares a resource: `⛓ shell:session after #2`. */
export function chainNote(row: CallRow): string {
  if (row.resource === '') return '';
  return row.after >= 0 ? `⛓ ${row.resource} after #${row.after}` : `⛓ ${row.resource}`;
}

/**
 * One line for a call, cut to `width` characters. Control characters in the tool's name and
 * messages are shown as escapes (see {@link visible}), line breaks and tabs as spaces.
 */
export function renderRow(row: CallRow, now: number, nameWidth: number, width: number): string {
  const shown = visible(row.name);
  const name =
    shown.length > nameWidth ? `${shown.slice(0, nameWidth - 1)}…` : shown.padEnd(nameWidth);
  const head = `${ICONS[row.phase]} #${String(row.index).padEnd(2)} ${name} ${row.phase.padEnd(9)}`;
  const parts = visible(
    [head, elapsed(row, now).padStart(6), progressBar(row), chainNote(row), row.message]
      .filter((p) => p !== '')
      .join('  ')
      .replace(/[\r\n\t]+/g, ' '),
  );
  return [...parts].length > width
    ? `${[...parts].slice(0, Math.max(1, width - 1)).join('')}…`
    : parts;
}
