// Mocha's spec output, then the ten slowest files, then one plain closing line that any CI can
// read: "N passed, N failed". Before it, any process the run left behind is listed, killed and
// counted as a failure (test/support/processes.cjs; README, "Development").
'use strict';
const { existsSync, readFileSync, rmSync } = require('node:fs');
const { relative } = require('node:path');
const Mocha = require('mocha');
const { survivors } = require('./processes.cjs');
const { timesFile } = require('./times.cjs');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

/** Each file's time: noted by the workers (--parallel), or seen here (one process). */
function fileTimes(seen) {
  const times = new Map(seen);
  const out = timesFile();
  if (out !== undefined && existsSync(out)) {
    times.clear();
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      if (line === '') continue;
      const { file, ms } = JSON.parse(line);
      times.set(file, (times.get(file) ?? 0) + ms);
    }
    rmSync(out, { force: true });
  }
  return [...times].sort((a, b) => b[1] - a[1]);
}

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = timesFile();
    if (out !== undefined) rmSync(out, { force: true });
    // One process (no --parallel): a file's time is its top suite's, seen live.
    const seen = new Map();
    const began = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) began.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      if (!began.has(suite)) return;
      seen.set(suite.file, (seen.get(suite.file) ?? 0) + Date.now() - began.get(suite));
    });
    // Interrupted: what the tests started goes with the run.
    process.once('SIGINT', () => survivors());
    runner.once(EVENT_RUN_END, () => {
      const slowest = fileTimes(seen).slice(0, 10);
      const left = survivors();
      if (left.length > 0) {
        runner.failures += left.length;
        this.stats.failures += left.length;
      }
      // After Spec's epilogue, so that the closing line is the last line printed.
      process.nextTick(() => {
        if (slowest.length > 0) {
          console.log('Slowest files:');
          for (const [file, ms] of slowest)
            console.log(
              `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${relative(process.cwd(), file)}`,
            );
        }
        for (const { pid, command } of left)
          console.log(`A process outlived the tests (killed): ${pid} ${command}`);
        const { passes, failures, pending } = this.stats;
        const skipped = pending > 0 ? `, ${pending} skipped` : '';
        console.log(`${passes} passed, ${failures} failed${skipped}`);
      });
    });
  }
}
module.exports = SummaryReporter;
