import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { join } from 'node:path';
import { lastValueFrom } from 'rxjs';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { stdioTransport } from '../../adapters/mcp-stdio/index.js';
import { CallContext, type Tool } from '../../index.js';
import { cliArgs, finished, root, runCli, serveCli } from '../support/cli.js';
import { post } from '../support/raw-http.js';
import { initializeRequest } from '../support/mcp-messages.js';
import { scaled } from '../support/time.js';

const patternServer = `node ${join(import.meta.dirname, '..', 'fixtures', 'pattern-server.mjs')}`;
/** An upstream listing `deep`, whose schema nests `depth` levels, and `plain`. */
const deepServer = (depth: number) =>
  `node ${join(import.meta.dirname, '..', 'fixtures', 'deep-schema-server.mjs')} ${depth}`;

async function output(tool: Tool | undefined, args: object): Promise<unknown> {
  if (tool === undefined) throw new Error('no such tool');
  const call = { id: 'c1', args: JSON.stringify(args) };
  try {
    return (await lastValueFrom(tool.execute(call, new CallContext(call)))).result.output;
  } catch (err) {
    return `failed: ${(err as Error).message}`;
  }
}

/** Runs `agenttool` with `args` and variables added to the environment, to its end. */
function runWithEnv(args: string[], env: Record<string, string>) {
  const child = reaped(
    spawn(process.execPath, [...cliArgs(), ...args], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    }),
  );
  child.stdin.end();
  return finished(child);
}

describe('agenttool serve: limits and schemas from elsewhere', function () {
  this.timeout(scaled(30_000));

  it('re-serves an upstream whose patterns cannot compile over HTTP: initialize answers, every tool is served as listed', async () => {
    const served = serveCli(['--mcp', patternServer, '--prefix', 'up']);
    try {
      await served.url;
      const remote = await connectMcp(httpTransport((await served.url).href));
      try {
        const names = remote.tools.map((t) => t.name);
        expect(names).to.include.members([
          'bash',
          'up__backtracks',
          'up__plain',
          'up__dash_class',
          'up__unclosed',
        ]);
        // A proxy leaves a remote tool's arguments to its server: it runs none of its patterns,
        // so a backtracking one cannot block it, and the upstream answers in its own words.
        const backtracks = remote.tools.find((t) => t.name === 'up__backtracks');
        expect(await output(backtracks, { s: 'a'.repeat(30) + '!' })).to.equal('ran backtracks');
        const unclosed = remote.tools.find((t) => t.name === 'up__unclosed');
        expect(await output(unclosed, { s: 'x' })).to.equal('ran unclosed');
      } finally {
        await remote.close();
      }
      expect(served.stderr()).not.to.contain('left out');
    } finally {
      served.child.kill('SIGTERM');
    }
    expect((await served.done).status).to.equal(0);
  });

  it('re-serves the same upstream over stdio without hanging', async () => {
    const remote = await connectMcp(
      stdioTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve', '--mcp', patternServer],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const names = remote.tools.map((t) => t.name);
      expect(names).to.include.members(['bash', 'plain', 'backtracks', 'unclosed', 'dash_class']);
      expect(
        await output(
          remote.tools.find((t) => t.name === 'plain'),
          {},
        ),
      ).to.equal('ran plain');
    } finally {
      await remote.close();
    }
  });

  for (const depth of [3_000, 100_000]) {
    it(`leaves out an upstream tool whose schema nests ${depth} deep, with one line, and serves the rest over HTTP`, async () => {
      const served = serveCli(['--mcp', deepServer(depth), '--prefix', 'up']);
      try {
        const remote = await connectMcp(httpTransport((await served.url).href));
        try {
          const names = remote.tools.map((t) => t.name);
          expect(names).to.include.members(['bash', 'up__plain']);
          expect(names).not.to.include('up__deep');
          const plain = remote.tools.find((t) => t.name === 'up__plain');
          expect(await output(plain, {})).to.equal('ran plain');
        } finally {
          await remote.close();
        }
        const lines = served
          .stderr()
          .split('\n')
          .filter((line) => line.includes('"deep"'));
        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(
          /^agenttool: warning: --mcp .*: mcp: tools\/list: left out tool "deep": its definition is nested deeper than 512 levels$/,
        );
      } finally {
        served.child.kill('SIGTERM');
      }
      expect((await served.done).status).to.equal(0);
    });
  }

  it('leaves out a 3,000-deep upstream schema over stdio and in run --list, listing the rest', async () => {
    const remote = await connectMcp(
      stdioTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve', '--mcp', deepServer(3_000)],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const names = remote.tools.map((t) => t.name);
      expect(names).to.include.members(['bash', 'plain']);
      expect(names).not.to.include('deep');
    } finally {
      await remote.close();
    }
    const listed = await runCli(['run', '--list', '--mcp', deepServer(3_000)]);
    expect(listed.status).to.equal(0);
    const listedNames = (JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name);
    expect(listedNames).to.include.members(['bash', 'plain']);
    expect(listedNames).not.to.include('deep');
    expect(listed.stderr).to.contain('left out tool "deep": its definition is nested deeper');
  });

  it('caps sessions with --max-sessions: 503 past it, the open ones go on', async () => {
    const served = serveCli(['--max-sessions', '1']);
    try {
      const url = await served.url;
      // A session is MCP 2025-11-25's: this client opens one.
      const remote = await connectMcp(httpTransport(url.href), {
        versionNegotiation: { mode: 'legacy' },
      });
      try {
        const refused = await post(url, initializeRequest).reply;
        expect(refused.status).to.equal(503);
        expect(refused.messages[0]?.error?.message).to.match(/too many sessions \(1\)/);
        const bash = remote.tools.find((t) => t.name === 'bash');
        expect(await output(bash, { command: 'echo still' })).to.equal('still\n[exit code 0]');
      } finally {
        await remote.close();
      }
    } finally {
      served.child.kill('SIGTERM');
    }
    await served.done;
  });

  it('refuses at startup, with exit 2 and one line, a token with whitespace from --token or AGENTTOOL_TOKEN', async () => {
    const flag = await runCli(['serve', '--http', '0', '--token', 'two words']);
    expect(flag.status).to.equal(2);
    expect(flag.stderr.trim().split('\n')).to.have.length(1);
    expect(flag.stderr).to.match(/--token: token must not contain whitespace/);
    const env = await runWithEnv(['serve', '--http', '0'], { AGENTTOOL_TOKEN: 'tok ' });
    expect(env.status).to.equal(2);
    expect(env.stderr).to.match(/AGENTTOOL_TOKEN: token must not contain whitespace/);
  });

  it('refuses --max-sessions without --http, or below 1', async () => {
    expect((await runCli(['serve', '--max-sessions', '5'])).stderr).to.match(
      /--max-sessions applies to --http only/,
    );
    expect((await runCli(['serve', '--http', '0', '--max-sessions', '0'])).status).to.equal(2);
  });
});
