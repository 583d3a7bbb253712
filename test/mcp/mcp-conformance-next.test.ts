/**
 * The conformance suite's next line (`@modelcontextprotocol/conformance` 0.2.0-alpha.12, installed
 * as `conformance-next`), which adds MCP 2026-07-28: every scenario it lists is in one of the
 * tables of test/support/conformance-next.ts, each with its reason when it is not expected to pass. A scenario listed as not yet
 * passing that passes makes the test fail too, so that the tables stay true. docs/mcp.md says what
 * is run and why.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpHttpServer } from '../../adapters/mcp-server/index.js';
import { serveConformance } from '../conformance/everything-server.js';
import { all, failures, node22, onceMore } from '../support/conformance.js';
import {
  CLIENT,
  clientOutOfScope,
  conformance,
  listed,
  passingNotYet,
  runClientScenarios,
  SERVER,
} from '../support/conformance-next.js';
import { scaled } from '../support/time.js';

describe('MCP conformance suite, next line (0.2.0-alpha.12: MCP 2026-07-28)', function () {
  this.timeout(scaled(300_000));
  const cwd = mkdtempSync(join(tmpdir(), 'agenttool-conformance-next-'));
  let node: string;
  let http: McpHttpServer | undefined;

  before(() => {
    node = node22();
  });
  after(() => http?.close());

  it('lists no scenario the tables do not name', async () => {
    const server = await listed(node, 'server', cwd);
    const client = await listed(node, 'client', cwd);
    expect(server.length).to.be.greaterThan(40);
    expect(server.filter((s) => SERVER[s] === undefined)).to.deep.equal([]);
    expect(client.filter((s) => CLIENT[s] === undefined && !clientOutOfScope(s))).to.deep.equal([]);
  });

  it('createMcpServer over Streamable HTTP: every scenario in scope passes', async () => {
    http = await serveConformance();
    const url = http.url;
    const scenarios = Object.entries(SERVER)
      .filter(([, verdict]) => verdict === 'pass' || 'notYet' in verdict)
      .map(([name]) => name);
    const one = (scenario: string) =>
      conformance(node, ['server', '--url', url, '--scenario', scenario], cwd);
    // A scenario expected to pass is run once more when it fails (see onceMore).
    const results = await all(scenarios, (scenario) =>
      SERVER[scenario] === 'pass' ? onceMore(one)(scenario) : one(scenario),
    );
    const expected = new Map([...results].filter(([name]) => SERVER[name] === 'pass'));
    expect(failures(expected)).to.deep.equal([]);
    expect(passingNotYet(SERVER, results)).to.deep.equal([]);
  });

  it('connectMcp: every scenario in scope passes, but authorization (its own file)', async () => {
    const results = await runClientScenarios(node, cwd, (name) => !name.startsWith('auth/'));
    const expected = new Map([...results].filter(([name]) => CLIENT[name] === 'pass'));
    expect(failures(expected)).to.deep.equal([]);
    expect(passingNotYet(CLIENT, results)).to.deep.equal([]);
  });
});
