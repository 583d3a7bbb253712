/**
 * The conformance suite's authorization scenarios (next line) against `connectMcp` with
 * httpTransport's `auth` (test/conformance/everything-client.ts), those the stable line does not
 * have; a file of its own, so that they run beside the other scenarios. The table is in
 * test/support/conformance-next.ts.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conformanceOf, failures, node22 } from '../support/conformance.js';
import { CLIENT, passingNotYet, runClientScenarios } from '../support/conformance-next.js';
import { scaled } from '../support/time.js';

describe('MCP conformance suite, next line: authorization (connectMcp)', function () {
  this.timeout(scaled(300_000));

  it('every authorization scenario in scope passes', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agenttool-conformance-auth-'));
    // The stable line's scenarios run against the same client in test/mcp/mcp-conformance.test.ts;
    // here the ones it lacks, and the next line's version of the one it serves with a forged issuer.
    const stable = await conformanceOf('@modelcontextprotocol/conformance')(
      node22(),
      ['list', '--client'],
      cwd,
    ).then((run) => new Set([...run.output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!)));
    expect(stable.size).to.equal(26);
    stable.delete('auth/2025-03-26-oauth-metadata-backcompat');
    const results = await runClientScenarios(
      node22(),
      cwd,
      (name) => name.startsWith('auth/') && !stable.has(name),
    );
    expect(results.size).to.be.greaterThan(10);
    const expected = new Map([...results].filter(([name]) => CLIENT[name] === 'pass'));
    expect(failures(expected)).to.deep.equal([]);
    expect(passingNotYet(CLIENT, results)).to.deep.equal([]);
  });
});
