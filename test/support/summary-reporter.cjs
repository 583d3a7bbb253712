// Mocha's spec output, then one plain closing line that any CI can read: "N passed, N failed".
'use strict';
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      // After Spec's epilogue, so it is the last line printed.
      process.nextTick(() => console.log(`${passes} passed, ${failures} failed${skipped}`));
    });
  }
}
module.exports = SummaryReporter;
