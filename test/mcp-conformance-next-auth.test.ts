/**
 * The conformance suite's authorization scenarios (next line) against `connectMcp` with
 * httpTransport's `auth` (test/conformance/everything-client.ts); a file of its own, so that they
 * run beside the other scenarios. The table is in test/support/conformance-next.ts.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failures, node22 } from './support/conformance.js';
import { CLIENT, passingNotYet, runClientScenarios } from './support/conformance-next.js';

describe('MCP conformance suite, next line: authorization (connectMcp)', function () {
  this.timeout(300_000);

  it('every authorization scenario in scope passes', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agenttool-conformance-auth-'));
    const results = await runClientScenarios(node22(), cwd, (name) => name.startsWith('auth/'));
    expect(results.size).to.be.greaterThan(20);
    const expected = new Map([...results].filter(([name]) => CLIENT[name] === 'pass'));
    expect(failures(expected)).to.deep.equal([]);
    expect(passingNotYet(CLIENT, results)).to.deep.equal([]);
  });
});
