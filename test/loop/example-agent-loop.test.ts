import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { root } from '../support/cli.js';
import { scaled } from '../support/time.js';

describe('examples/agent-loop.ts', function () {
  this.timeout(scaled(120_000));

  it('runs offline against the replayed conversation: both calls, then the answer', async () => {
    const env = { ...process.env };
    delete env['OPENAI_API_KEY'];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'examples/agent-loop.ts'],
      { cwd: root, env },
    );
    expect(stdout).to.match(/call multiply \{"a":17,"b":23\}/);
    expect(stdout).to.match(/multiply -> "391"/);
    expect(stdout).to.match(/weather -> "light snow in Oslo, -3 °C"/);
    expect(stdout).to.match(/17 × 23 = 391\. In Oslo: light snow, -3 °C\./);
    expect(stdout).to.match(/done after 2 turns/);
    // The first call ran while the model was still writing the second.
    expect(stdout.indexOf('multiply -> ')).to.be.below(stdout.indexOf('call weather'));
  });
});
