/**
 * The benchmarks cannot break unseen: `npm test` compiles them (tsconfig.bench.json, into
 * `.bench-test-build/`, apart from `npm run bench`'s `.bench-build/`) and runs one quick pass of
 * the cheap scenarios (`--quick --only=1,2,4`: executor overhead, typed call overhead, progress
 * throughput; a few seconds each). A full quick pass takes minutes, so the others are left to
 * `npm run bench -- --quick`. Only that they run and report finite numbers is checked here: their
 * targets are the benchmarks' to judge (BENCHMARKS.md), not a test's.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from '../support/cli.js';

const run = promisify(execFile);
const OUT = '.bench-test-build';

describe('the benchmarks', function () {
  this.timeout(300_000);

  it('compile, and the cheap scenarios run one quick pass', async () => {
    await run(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.bench.json', '--outDir', OUT],
      { cwd: root },
    );
    const { stdout } = await run(
      process.execPath,
      ['--expose-gc', join(root, OUT, 'bench/run.js'), '--quick', '--only=1,2,4', '--json'],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    const document = JSON.parse(stdout) as {
      quick: boolean;
      rows: { scenario: string; ours: { value: number } }[];
    };
    expect(document.quick).to.equal(true);
    const scenarios = new Set(document.rows.map((r) => r.scenario.split(' ')[0]));
    expect([...scenarios].sort()).to.deep.equal(['1', '2', '4']);
    for (const r of document.rows) expect(Number.isFinite(r.ours.value), r.scenario).to.equal(true);
  });
});
