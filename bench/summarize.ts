/**
 * Merges the JSON of several `npm run bench -- --json=FILE` runs into the Markdown table that
 * BENCHMARKS.md shows: per row, the run whose ratio is the median of the runs, and the range of
 * the ratio over all runs.
 *
 *   node --import tsx bench/summarize.ts run-1.json run-2.json run-3.json
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { formatMeasure, type Row } from './report.js';

interface Run {
  readonly rows: Row[];
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: summarize.ts run.json...');
const runs = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Run);

const keyOf = (r: Row) => `${r.scenario}|${r.name}|${r.baseline?.label ?? ''}`;
const groups = new Map<string, Row[]>();
for (const run of runs) {
  for (const r of run.rows) {
    const group = groups.get(keyOf(r)) ?? [];
    group.push(r);
    groups.set(keyOf(r), group);
  }
}

/** The value a row is judged on: its ratio, or its own value where the target is on ours. */
const judged = (r: Row) =>
  r.target?.on === 'ours' || r.ratio === undefined ? r.ours.value : r.ratio;

const lines = [
  `| scenario | measure | ours | baseline | ratio (range over ${runs.length} runs) | target | result |`,
  '| --- | --- | --- | --- | --- | --- | --- |',
];
for (const group of groups.values()) {
  const sorted = [...group].sort((a, b) => judged(a) - judged(b));
  const mid = sorted[(sorted.length - 1) >> 1];
  const ratios = group.map((r) => r.ratio).filter((v): v is number => v !== undefined);
  const range =
    ratios.length === 0
      ? ''
      : `${mid.ratio!.toFixed(2)}x (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  const verdicts = group.map((r) => r.verdict);
  const result =
    mid.target === undefined
      ? 'INFO'
      : verdicts.every((v) => v === verdicts[0])
        ? mid.verdict
        : `${mid.verdict} (${verdicts.filter((v) => v === 'PASS').length} of ${verdicts.length} runs pass)`;
  const baseline =
    mid.baseline === undefined ? '' : `${mid.baseline.label}: ${formatMeasure(mid.baseline)}`;
  lines.push(
    `| ${mid.scenario} | ${mid.name} | ${mid.ours.label}: ${formatMeasure(mid.ours)} | ${baseline} | ${range} | ${mid.target?.text ?? ''} | ${result} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
