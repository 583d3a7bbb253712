// Where the mocha workers note each file's time for the summary reporter.
'use strict';
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function timesFile(run = process.env.AGENTTOOL_TEST_RUN) {
  return run === undefined ? undefined : join(tmpdir(), `agenttool-test-${run}.times`);
}

module.exports = { timesFile };
