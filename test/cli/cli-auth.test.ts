/**
 * `agenttool run --mcp-url <url> --auth` against the official suite's authorization scenarios:
 * the suite starts a server that asks for authorization and its own authorization server, and
 * runs the command with the server's URL. The person's browser is a stand-in ($BROWSER) that
 * opens the page and follows the redirect, as a browser does once the person approves; the code
 * comes back to the command's loopback address. What is granted is kept in a file its user alone
 * can read.
 */
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, root } from '../support/cli.js';
import { conformanceOf, node22 } from '../support/conformance.js';
import { scaled } from '../support/time.js';

const conformance = conformanceOf('conformance-next');
const require = createRequire(import.meta.url);

describe('agenttool run --auth: OAuth with a loopback redirect (the suite’s scenarios)', function () {
  this.timeout(scaled(120_000));
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-auth-'));
  const file = join(dir, 'config', 'oauth.json');
  const saved = { browser: process.env.BROWSER, file: process.env.AGENTTOOL_OAUTH_FILE };

  before(() => {
    process.env.BROWSER = join(root, 'test', 'fixtures', 'open-url.mjs');
    process.env.AGENTTOOL_OAUTH_FILE = file;
  });
  after(() => {
    for (const [key, value] of [
      ['BROWSER', saved.browser],
      ['AGENTTOOL_OAUTH_FILE', saved.file],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  });

  for (const scenario of ['auth/metadata-default', 'auth/scope-from-www-authenticate'])
    it(`${scenario}: authorizes, lists the tools, and keeps what was granted in a 0600 file`, async () => {
      // Run from another folder: tsx (when the sources run) named by its path.
      const args = cliArgs().map((a) => (a === 'tsx' ? require.resolve('tsx') : a));
      const command = [process.execPath, ...args, 'run', '--list', '--auth', '--mcp-url'];
      const run = await conformance(
        node22(),
        ['client', '--command', command.join(' '), '--scenario', scenario],
        dir,
      );
      expect(run.output, run.output.slice(-3000)).to.match(/\b0 failed\b/);
      expect(run.status, run.output.slice(-2000)).to.equal(0);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(statSync(join(dir, 'config')).mode & 0o777).to.equal(0o700);
      const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<
        string,
        { tokens?: { access_token?: string }; client?: { client_id?: string } }
      >;
      const latest = Object.values(kept).at(-1)!;
      expect(latest.tokens?.access_token).to.be.a('string');
      expect(latest.client?.client_id).to.be.a('string');
    });

  it('ignores a callback with a forged state (400) and completes with the redirect it started', async () => {
    const args = cliArgs().map((a) => (a === 'tsx' ? require.resolve('tsx') : a));
    const command = [process.execPath, ...args, 'run', '--list', '--auth', '--mcp-url'];
    const log = join(dir, 'forged.log');
    process.env.BROWSER = join(root, 'test', 'fixtures', 'open-url-forged-first.mjs');
    process.env.AGENTTOOL_FORGED_LOG = log;
    process.env.AGENTTOOL_OAUTH_FILE = join(dir, 'forged', 'oauth.json');
    try {
      const run = await conformance(
        node22(),
        ['client', '--command', command.join(' '), '--scenario', 'auth/metadata-default'],
        dir,
      );
      expect(readFileSync(log, 'utf8').trim().split('\n')).to.deep.equal(['400']);
      // Had the forged code been taken, exchanging it for tokens would have failed the scenario.
      expect(run.output, run.output.slice(-3000)).to.match(/\b0 failed\b/);
      expect(run.status, run.output.slice(-2000)).to.equal(0);
    } finally {
      process.env.BROWSER = join(root, 'test', 'fixtures', 'open-url.mjs');
      process.env.AGENTTOOL_OAUTH_FILE = file;
      delete process.env.AGENTTOOL_FORGED_LOG;
    }
  });

  it('refuses --auth without an --mcp-url server', async () => {
    const { runCli } = await import('../support/cli.js');
    const { status, stderr } = await runCli(['run', '--list', '--auth']);
    expect(status).to.equal(2);
    expect(stderr).to.contain('--auth applies to --mcp-url servers; none is given');
  });
});
