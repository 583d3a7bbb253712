/**
 * The rows every scenario reports, their verdicts against the targets, and the printed table.
 *
 * @module
 */

/**
 * The unit a measure is in; `ns/call`, `ms`, `B/call`, `KB` and `commands/call` (Redis commands)
 * are costs (lower is better), the rest rates.
 */
export type Unit =
  'ns/call' | 'ns/event' | 'events/s' | 'calls/s' | 'ms' | 'B/call' | 'KB' | 'commands/call';

/** One number of one side. */
export interface Measure {
  readonly label: string;
  readonly value: number;
  readonly unit: Unit;
}

/**
 * A target on a row's ratio (ours over the baseline, costs) or on ours alone. `max` bounds a
 * ratio or a cost from above, `min` a rate from below.
 */
export interface Target {
  readonly on: 'ratio' | 'ours';
  readonly max?: number;
  readonly min?: number;
  /** How the target reads in the table, e.g. `<= 2x`. */
  readonly text: string;
}

/** One line of the table. */
export interface Row {
  readonly scenario: string;
  readonly name: string;
  readonly ours: Measure;
  readonly baseline?: Measure;
  /** Ours over the baseline for costs; the baseline over ours for rates: above 1 is slower. */
  readonly ratio?: number;
  readonly target?: Target;
  /** PASS or MISS against the target; INFO for a row without one. */
  readonly verdict: 'PASS' | 'MISS' | 'INFO';
  readonly note?: string;
  /** How many runs were merged into this row (see merge-runs.ts); absent for one run. */
  readonly runs?: number;
  /** The lowest and highest ratio over the runs merged. */
  readonly range?: readonly [number, number];
  /** How many of the runs merged met the target. */
  readonly passed?: number;
}

const RATES: ReadonlySet<Unit> = new Set(['events/s', 'calls/s']);

/** A row with its ratio and verdict worked out. */
export function row(fields: Omit<Row, 'ratio' | 'verdict'>): Row {
  const { ours, baseline, target } = fields;
  let ratio: number | undefined;
  if (baseline !== undefined && baseline.value > 0 && ours.value > 0) {
    ratio = RATES.has(ours.unit) ? baseline.value / ours.value : ours.value / baseline.value;
  }
  let verdict: Row['verdict'] = 'INFO';
  if (target !== undefined) {
    const value = target.on === 'ratio' ? ratio : ours.value;
    const ok =
      value !== undefined &&
      Number.isFinite(value) &&
      (target.max === undefined || value <= target.max) &&
      (target.min === undefined || value >= target.min);
    verdict = ok ? 'PASS' : 'MISS';
  }
  return { ...fields, ...(ratio === undefined ? {} : { ratio }), verdict };
}

/** A number in its unit, short enough for a table cell. */
export function formatMeasure(measure: Measure | undefined): string {
  if (measure === undefined) return '';
  const { value, unit } = measure;
  if (unit === 'ns/call' || unit === 'ns/event') {
    const per = unit.slice(3);
    if (value >= 1e6) return `${(value / 1e6).toFixed(2)} ms/${per}`;
    if (value >= 1e4) return `${(value / 1e3).toFixed(1)} µs/${per}`;
    if (value >= 1e3) return `${(value / 1e3).toFixed(2)} µs/${per}`;
    return `${value.toFixed(0)} ns/${per}`;
  }
  if (unit === 'events/s' || unit === 'calls/s') {
    if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M ${unit}`;
    if (value >= 1e4) return `${(value / 1e3).toFixed(1)} k ${unit}`;
    return `${value.toFixed(0)} ${unit}`;
  }
  if (unit === 'ms') return `${value.toFixed(2)} ms`;
  if (Number.isNaN(value)) return 'n/a';
  return `${value.toFixed(Math.abs(value) < 10 ? 1 : 0)} ${unit}`;
}

function cells(r: Row): string[] {
  const ours = `${r.ours.label}: ${formatMeasure(r.ours)}`;
  const baseline =
    r.baseline === undefined ? '' : `${r.baseline.label}: ${formatMeasure(r.baseline)}`;
  let ratio = r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`;
  if (r.range !== undefined)
    ratio += ` (${r.range[0].toFixed(2)}–${r.range[1].toFixed(2)} over ${r.runs} runs)`;
  const result =
    r.passed === undefined || r.passed === r.runs
      ? r.verdict
      : `${r.verdict} (${r.passed} of ${r.runs} pass)`;
  return [r.scenario, r.name, ours, baseline, ratio, r.target?.text ?? '', result];
}

const HEADER = ['scenario', 'measure', 'ours', 'baseline', 'ratio', 'target', 'result'];

/** The rows as an aligned plain-text table. */
export function formatTable(rows: readonly Row[]): string {
  const table = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, c) => Math.max(...table.map((line) => line[c].length)));
  return table
    .map((line) =>
      line
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
