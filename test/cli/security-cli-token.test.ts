import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { lastValueFrom } from 'rxjs';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { CallContext } from '../../index.js';
import { cliArgs, finished, root, runCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

/** Starts `agenttool serve` with `args` and `env` added, and resolves with the URL it prints. */
function serve(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; url: Promise<string> } {
  const child = reaped(
    spawn(process.execPath, [...cliArgs(), 'serve', ...args], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    }),
  );
  const url = new Promise<string>((done, fail) => {
    let text = '';
    child.stderr!.on('data', (d: Buffer) => {
      text += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
      if (match) done(match[1]!);
    });
    child.once('close', () => fail(new Error(`exited: ${text}`)));
  });
  return { child, url };
}

/** Whether a client with `headers` can list the tools and run `bash`. */
async function reaches(url: string, headers?: Record<string, string>): Promise<string> {
  let remote;
  try {
    remote = await connectMcp(httpTransport(url, headers === undefined ? {} : { headers }));
  } catch (err) {
    return (err as Error).message;
  }
  try {
    const bash = remote.tools.find((t) => t.name === 'bash')!;
    const call = { id: 'c', args: '{"command":"echo let in"}' };
    const event = await lastValueFrom(bash.execute(call, new CallContext(call)));
    return String(event.result.output);
  } finally {
    await remote.close();
  }
}

describe('agenttool serve --token', function () {
  this.timeout(scaled(30_000));

  it('serves only clients that send the token given by --token', async () => {
    const { child, url } = serve(['--http', '0', '--token', 't']);
    const done = finished(child);
    try {
      const at = await url;
      expect(await reaches(at)).to.match(/Unauthorized: a bearer token is required/);
      expect(await reaches(at, { authorization: 'Bearer wrong' })).to.match(
        /Unauthorized: invalid token/,
      );
      expect(await reaches(at, { authorization: 'Bearer t' })).to.equal('let in\n[exit code 0]');
    } finally {
      child.kill('SIGTERM');
    }
    expect((await done).status).to.equal(0);
  });

  it('takes the token from AGENTTOOL_TOKEN when --token is absent', async () => {
    const { child, url } = serve(['--http', '0'], { AGENTTOOL_TOKEN: 'from-env' });
    const done = finished(child);
    try {
      const at = await url;
      expect(await reaches(at)).to.match(/Unauthorized/);
      expect(await reaches(at, { authorization: 'Bearer from-env' })).to.equal(
        'let in\n[exit code 0]',
      );
    } finally {
      child.kill('SIGTERM');
    }
    await done;
  });

  it('refuses --token without --http, and an empty token, as bad input', async () => {
    const stdio = await runCli(['serve', '--token', 't']);
    expect(stdio.status).to.equal(2);
    expect(stdio.stderr).to.equal('agenttool: --token applies to --http only\n');
    const empty = await runCli(['serve', '--http', '0', '--token', '']);
    expect(empty.status).to.equal(2);
    expect(empty.stderr).to.equal('agenttool: --token needs a value\n');
  });
});
