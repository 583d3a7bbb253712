/**
 * However an agenttool process ends (SIGTERM, SIGINT, SIGHUP, its stdin closing on stdio, an
 * uncaught error), the commands its bash calls started end with it: their process groups are gone.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { initializeRequest } from '../support/mcp-messages.js';
import { cliArgs, root, startCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'agenttool-exit-'));
let files = 0;

/** A bash command that writes its process group id to a new file, then sleeps for long. */
function longCommand(): { command: string; file: string } {
  const file = join(dir, `pgid-${++files}`);
  return { file, command: `echo $$ > ${file}.tmp; mv ${file}.tmp ${file}; sleep 1000` };
}

/** Resolves with the number written to `file`, once it is there (bounded: 20 s, scaled). */
async function readPgid(file: string): Promise<number> {
  const deadline = Date.now() + scaled(20_000);
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was never written`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Number(readFileSync(file, 'utf8').trim());
}

function alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the exit code (or signal) of `child`, bounded: 15 s. */
function exited(child: ChildProcess): Promise<number | string | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the process did not exit in 15 s')), 15_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal);
    });
  });
}

/** Waits up to 2 s for the group to go, then says whether it is gone. */
async function gone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 40 && alive(pgid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pgid);
}

const groups: number[] = [];
afterEach(() => {
  for (const pgid of groups.splice(0))
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
});

/** `agenttool serve` on stdio with a bash call running; returns the child and the group. */
async function serveWithShell(): Promise<{ child: ChildProcess; pgid: number }> {
  const child = reaped(
    spawn(process.execPath, [...cliArgs(), 'serve'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'ignore'],
    }),
  );
  child.stdout!.resume();
  const { command, file } = longCommand();
  const send = (message: object): void => void child.stdin!.write(`${JSON.stringify(message)}\n`);
  send(initializeRequest);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'bash', arguments: { command } },
  });
  const pgid = await readPgid(file);
  groups.push(pgid);
  expect(alive(pgid), 'the command runs').to.equal(true);
  return { child, pgid };
}

describe('agenttool processes reap their commands however they end', function () {
  this.timeout(scaled(60_000));

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    it(`serve on stdio, on ${signal}: exits 0 and the bash call's process group is gone`, async () => {
      const { child, pgid } = await serveWithShell();
      const done = exited(child);
      child.kill(signal);
      expect(await done).to.equal(0);
      expect(await gone(pgid), 'the process group is gone').to.equal(true);
    });

  it("serve on stdio, when stdin closes: exits 0 and the bash call's process group is gone", async () => {
    const { child, pgid } = await serveWithShell();
    const done = exited(child);
    child.stdin!.end();
    expect(await done).to.equal(0);
    expect(await gone(pgid), 'the process group is gone').to.equal(true);
  });

  it('serve on stdio, on a second SIGTERM while closing: exits at once, the group gone', async () => {
    const { child, pgid } = await serveWithShell();
    const done = exited(child);
    child.kill('SIGTERM');
    child.kill('SIGTERM');
    // 143 when the second reached the handler; 0 when the two came as one, or the first finished
    // closing before the second; the signal itself when the second came while the process was
    // already tearing down, after its exit handler reaped: a status the OS gives, not agenttool.
    expect(await done).to.be.oneOf([0, 143, 'SIGTERM']);
    expect(await gone(pgid), 'the process group is gone').to.equal(true);
  });

  it("run, on SIGHUP (the terminal went away): the bash call's process group is gone", async () => {
    const { command, file } = longCommand();
    const turn = join(dir, 'turn.json');
    writeFileSync(
      turn,
      JSON.stringify([
        {
          type: 'function_call',
          call_id: 'a',
          name: 'bash',
          arguments: JSON.stringify({ command }),
        },
      ]),
    );
    const child = startCli(['run', turn, '--json']);
    child.stdout!.resume();
    child.stderr!.resume();
    const pgid = await readPgid(file);
    groups.push(pgid);
    const done = exited(child);
    child.kill('SIGHUP');
    expect(await done).to.equal(129);
    expect(await gone(pgid), 'the process group is gone').to.equal(true);
  });

  it("an uncaught error: the process exits 1 and the bash call's process group is gone", async () => {
    const file = join(dir, `pgid-${++files}`);
    const child = reaped(
      spawn(
        process.execPath,
        ['--import', 'tsx', resolve(root, 'test/fixtures/crash-with-shell.ts'), file],
        { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
      ),
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const pgid = await readPgid(file);
    groups.push(pgid);
    expect(await exited(child)).to.equal(1);
    expect(existsSync(`${file}.crash`), 'it crashed').to.equal(true);
    expect(stderr).to.contain('an uncaught error');
    expect(await gone(pgid), 'the process group is gone').to.equal(true);
  });
});
