import { spawn } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { cliArgs, finished, root, type CliResult } from '../support/cli.js';
import { scaled } from '../support/time.js';

// Node, told by this hook to find no package of the MCP SDK: a machine without that optional peer.
const withoutSdk = resolve(import.meta.dirname, '..', 'fixtures', 'without-mcp-sdk.mjs');

function runWithoutSdk(args: string[], missing = ''): Promise<CliResult> {
  const child = reaped(
    spawn(process.execPath, ['--import', withoutSdk, ...cliArgs(), ...args], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, AGENTTOOL_MISSING: missing },
    }),
  );
  child.stdin!.end('');
  return finished(child);
}

const install = 'an optional peer dependency of agenttool that is not installed: npm install';

describe('agenttool without the MCP SDK installed', function () {
  this.timeout(scaled(20_000));

  it('runs a turn of the bundled tools, which need no SDK', async () => {
    const { status, stdout, stderr } = await runWithoutSdk(['run', 'examples/turn.json', '--json']);
    expect(stderr).to.equal('');
    expect(stdout.trim().split('\n').length).to.be.greaterThan(1);
    expect([0, 1]).to.include(status); // the bundled turn fails two calls on purpose
  });

  const server =
    '@modelcontextprotocol/server @modelcontextprotocol/node @modelcontextprotocol/ext-tasks';
  const client = '@modelcontextprotocol/client';
  for (const [what, sdk, args] of [
    ['agenttool serve', server, ['serve']],
    ['agenttool serve', server, ['serve', '--http', '0']],
    ['--mcp and --mcp-url', client, ['run', 'examples/turn.json', '--mcp', 'node server.js']],
    [
      '--mcp and --mcp-url',
      client,
      ['run', 'examples/turn.json', '--mcp-url', 'http://127.0.0.1:9/mcp'],
    ],
  ] as const)
    it(`${args.join(' ')}: says in one line which package to install, and exits 2`, async () => {
      const { status, stderr } = await runWithoutSdk([...args]);
      expect(stderr).to.equal(`agenttool: ${what} needs the MCP SDK, ${install} ${sdk}\n`);
      expect(status).to.equal(2);
    });

  it('names only the package missing when the rest of the SDK is there', async () => {
    const { status, stderr } = await runWithoutSdk(
      ['serve', '--http', '0'],
      '@modelcontextprotocol/ext-tasks',
    );
    expect(stderr).to.equal(
      `agenttool: agenttool serve needs the MCP SDK, ${install} @modelcontextprotocol/ext-tasks\n`,
    );
    expect(status).to.equal(2);
  });
});
