/**
 * Merges the JSON of several `npm run bench -- --json=FILE` runs into the Markdown table that
 * BENCHMARKS.md shows: per row, the run whose ratio is the median of the runs, and the range of
 * the ratio over all runs (see merge-runs.ts). Give either one file written with `--runs=N`, or
 * several written without it, one run each.
 *
 *   node --import tsx bench/summarize.ts run-1.json run-2.json run-3.json
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { mergeRuns } from './merge-runs.js';
import { formatMeasure, type Row } from './report.js';

interface Run {
  readonly rows: Row[];
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: summarize.ts run.json...');
const runs = files.map((file) => (JSON.parse(readFileSync(file, 'utf8')) as Run).rows);
// One file written with --runs holds merged rows already, with their range.
const count = runs.length === 1 ? (runs[0]![0]?.runs ?? 1) : runs.length;

const lines = [
  `| scenario | measure | ours | baseline | ratio (range over ${count} runs) | target | result |`,
  '| --- | --- | --- | --- | --- | --- | --- |',
];
for (const mid of mergeRuns(runs)) {
  const range =
    mid.ratio === undefined
      ? ''
      : mid.range === undefined
        ? `${mid.ratio.toFixed(2)}x`
        : `${mid.ratio.toFixed(2)}x (${mid.range[0].toFixed(2)}–${mid.range[1].toFixed(2)})`;
  const result =
    mid.target === undefined
      ? 'INFO'
      : mid.passed === undefined || mid.passed === mid.runs
        ? mid.verdict
        : `${mid.verdict} (${mid.passed} of ${mid.runs} runs pass)`;
  const baseline =
    mid.baseline === undefined ? '' : `${mid.baseline.label}: ${formatMeasure(mid.baseline)}`;
  lines.push(
    `| ${mid.scenario} | ${mid.name} | ${mid.ours.label}: ${formatMeasure(mid.ours)} | ${baseline} | ${range} | ${mid.target?.text ?? ''} | ${result} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
