// The one factor by which the tests' ceilings (mocha's timeout, every wait in test/support) grow
// on a busy machine: TEST_TIME_SCALE when it is set, otherwise the 1-minute load average per
// core when that is above 1 (README, "Development").
'use strict';
const os = require('node:os');

function timeScale(env = process.env) {
  const given = Number(env.TEST_TIME_SCALE);
  if (env.TEST_TIME_SCALE !== undefined && Number.isFinite(given) && given > 0) return given;
  const perCore = os.loadavg()[0] / Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  return Math.max(1, Math.round(perCore * 10) / 10);
}

module.exports = { timeScale };
