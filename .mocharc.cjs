// Mocha's settings. One factor, TEST_TIME_SCALE, raises every ceiling in the tests on a busy
// machine; every process the tests start is reaped (README, "Development").
'use strict';
const { timeScale } = require('./test/support/time-scale.cjs');

// Set once, in the first mocha process: its re-spawned self and the parallel workers inherit both,
// and so does every process the tests start (which is how a survivor is found at the end).
process.env.TEST_TIME_SCALE = String(timeScale());
process.env.AGENTTOOL_TEST_RUN ??= `${process.pid}-${Date.now()}`;

module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  reporter: './test/support/summary-reporter.cjs',
  require: ['./test/support/root-hooks.cjs'],
  timeout: Math.round(20000 * Number(process.env.TEST_TIME_SCALE)),
};
