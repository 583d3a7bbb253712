/**
 * Several runs of the same rows merged into one: per row, the run whose judged value is the median
 * of the runs, with the range of the ratio over all runs and how many runs met the target.
 *
 * @module
 */
import type { Row } from './report.js';

/** The value a row is judged on: its ratio, or its own value where the target is on ours. */
export function judged(r: Row): number {
  return r.target?.on === 'ours' || r.ratio === undefined ? r.ours.value : r.ratio;
}

const keyOf = (r: Row) => `${r.scenario}|${r.name}|${r.ours.label}|${r.baseline?.label ?? ''}`;

/**
 * Merges `runs` (each the rows of one run, same scenarios) into one row per distinct row, in the
 * order of first appearance. A merged row is the median run's (the lower middle for an even
 * count), with `range` (lowest and highest ratio) and `passed` (runs that met the target) when
 * there is more than one run. Its verdict is PASS only when every run passed.
 */
export function mergeRuns(runs: readonly (readonly Row[])[]): Row[] {
  if (runs.length === 1) return [...runs[0]];
  const groups = new Map<string, Row[]>();
  for (const run of runs) {
    for (const r of run) {
      const group = groups.get(keyOf(r)) ?? [];
      group.push(r);
      groups.set(keyOf(r), group);
    }
  }
  return [...groups.values()].map((group) => {
    const sorted = [...group].sort((a, b) => judged(a) - judged(b));
    const mid = sorted[(sorted.length - 1) >> 1];
    const ratios = group.map((r) => r.ratio).filter((v): v is number => v !== undefined);
    const passed = group.filter((r) => r.verdict === 'PASS').length;
    const verdict: Row['verdict'] =
      mid.target === undefined ? 'INFO' : passed === group.length ? 'PASS' : 'MISS';
    return {
      ...mid,
      verdict,
      runs: group.length,
      ...(mid.target === undefined ? {} : { passed }),
      ...(ratios.length === 0 ? {} : { range: [Math.min(...ratios), Math.max(...ratios)] }),
    };
  });
}
