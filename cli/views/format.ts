/** Pieces of a one-line rendering of a call, shared by the terminal views. */
import stringWidth from 'string-width';
import type { CallRow } from '../call-state.js';
import { visible } from './visible.js';

const graphemes = new Intl.Segmenter();

/**
 * `text` cut to `width` terminal columns, ending with `…` when cut: measured by what a terminal
 * shows (a CJK character or an emoji takes two columns, a combining mark none), cut between
 * graphemes, never inside one.
 */
export function clip(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const cells = stringWidth(segment);
    if (used + cells > width - 1) break;
    out += segment;
    used += cells;
  }
  return `${out}…`;
}

/** `text` cut to `width` columns, then padded with spaces to fill them. */
export function fit(text: string, width: number): string {
  const clipped = clip(text, width);
  return clipped + ' '.repeat(Math.max(0, width - stringWidth(clipped)));
}

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
 * One line for a call, cut to `width` terminal columns (see {@link clip}). Control characters in the tool's name and
 * messages are shown as escapes (see {@link visible}), line breaks and tabs as spaces.
 */
export function renderRow(row: CallRow, now: number, nameWidth: number, width: number): string {
  const name = fit(visible(row.name), nameWidth);
  const head = `${ICONS[row.phase]} #${String(row.index).padEnd(2)} ${name} ${row.phase.padEnd(9)}`;
  const parts = visible(
    [head, elapsed(row, now).padStart(6), progressBar(row), chainNote(row), row.message]
      .filter((p) => p !== '')
      .join('  ')
      .replace(/[\r\n\t]+/g, ' '),
  );
  return clip(parts, Math.max(2, width));
}
