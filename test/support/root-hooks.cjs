// Mocha root hooks. In --parallel mode they run around each file, in the worker that runs it: the
// file's time is noted for the summary reporter, and whatever the file's tests started and left
// running is killed (test/support/processes.cjs; README, "Development").
'use strict';
const { appendFileSync } = require('node:fs');
const { reapChildren, descendants } = require('./processes.cjs');
const { timesFile } = require('./times.cjs');

let started = 0;
let before = new Set();

function fileOf(suite) {
  for (const child of [...suite.suites, ...suite.tests]) if (child.file) return child.file;
  return undefined;
}

function reapAndExit(code) {
  reapChildren(before);
  process.exit(code);
}
process.once('SIGINT', () => reapAndExit(130));
process.once('SIGTERM', () => reapAndExit(143));

exports.mochaHooks = {
  beforeAll() {
    started = Date.now();
    before = new Set(descendants(process.pid));
  },
  afterAll() {
    const killed = reapChildren(before);
    for (const command of killed)
      process.stderr.write(`    reaped a process the file left running: ${command}\n`);
    const file = this.test?.parent ? fileOf(this.test.parent) : undefined;
    const out = timesFile();
    if (file !== undefined && out !== undefined)
      appendFileSync(out, `${JSON.stringify({ file, ms: Date.now() - started })}\n`);
  },
};
