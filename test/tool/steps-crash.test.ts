import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { until } from '../support/until.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const fixture = resolve(root, 'test/fixtures/batch-with-steps.ts');

function run(args: string[]): { child: ChildProcess; stdout: Promise<string> } {
  const child = reaped(
    spawn(process.execPath, ['--import', 'tsx', fixture, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const stdout = new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('the process did not exit in 15 s')), 15_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || signal === 'SIGKILL') done(out);
      else fail(new Error(`the process exited with ${code ?? signal}`));
    });
  });
  return { child, stdout };
}

/** Waits (up to 15 s) until `ready` says the other process got where it was going. */

describe('steps across a crash', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'agenttool-steps-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a process killed mid-call resumes after the steps it recorded: none of them runs again', async () => {
    const journal = join(dir, 'journal.jsonl');
    const runs = () =>
      existsSync(`${journal}.runs`) ? readFileSync(`${journal}.runs`, 'utf8') : '';
    const first = run([journal]);
    await until(
      () => existsSync(`${journal}.waiting`) && runs().includes('push'),
      'both calls in their last step',
      15_000,
      50,
    );
    first.child.kill('SIGKILL');
    expect(await first.stdout).to.equal('');
    expect(runs().split('\n').filter(Boolean).sort()).to.deep.equal([
      'build',
      'download',
      'push',
      'unpack',
    ]);

    const second = run([journal, 'resume']);
    const finals = JSON.parse(await second.stdout) as { callId: string }[];
    // download and build ran once, in the first process; unpack, interrupted, ran again.
    expect(runs().split('\n').filter(Boolean).sort()).to.deep.equal([
      'build',
      'download',
      'push',
      'unpack',
      'unpack',
    ]);
    const resumed = { steps: ['download'], progress: { progress: 1, total: 2 } };
    expect(finals).to.deep.equal([
      {
        callId: 'd1',
        error: {
          code: 'not_replayed',
          message:
            'call "d1" was interrupted after step "build" and not replayed: tool "deploy" is not safe to run twice',
        },
      },
      {
        callId: 'f1',
        result: { output: `/tmp/a.tgz.d, resumed after ${JSON.stringify(resumed)}` },
      },
    ]);
  });
});
