/**
 * `agenttool run --redis --batch-id`: a run killed mid-batch and run again with the same id
 * resumes its batch, and the bash call that had run does not run again; a run without the flag
 * says its batch id. With `--secret-file`, the CLI's workers and dispatchers sign what they send; a
 * worker without a secret says what that means, and a short secret is refused. Needs Debian's
 * redis-server (started here; skipped with a line where it is missing).
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, runCli, startCli, type CliResult } from './support/cli.js';
import { skipWithoutRedis, startRedis, type TestRedis } from './support/redis.js';
import { until } from './support/until.js';

const call = (call_id: string, name: string, args: object) =>
  JSON.stringify({ type: 'function_call', call_id, name, arguments: JSON.stringify(args) });

/** Resolves with its stderr once `child` says it takes calls; rejects if it exits first. */
function taking(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      if (said.includes('worker taking calls')) resolve(said);
    });
    child.once('exit', () => reject(new Error(`agenttool worker exited: ${said}`)));
  });
}

describe('agenttool run --redis --batch-id, and --secret-file', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  const dir = mkdtempSync(join(tmpdir(), 'agenttool-batch-id-'));
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, `${'s'.repeat(40)}\n`);
  let worker: { child: ChildProcess; done: Promise<CliResult> } | undefined;

  before(async function () {
    skipWithoutRedis(this, 'the fleet batch id tests');
    redis = await startRedis();
    const child = startCli([
      'worker',
      '--redis',
      redis.url,
      '--concurrency',
      '2',
      '--secret-file',
      secretFile,
    ]);
    worker = { child, done: finished(child) };
    const said = await taking(child);
    expect(said).to.contain('signed calls only').and.not.to.contain('warning');
  });
  after(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.done;
    await redis?.stop();
  });

  const fleetArgs = () => ['--redis', redis.url, '--secret-file', secretFile];

  it('resumes a batch killed mid-run: the bash call that ran gives its result and does not run again', async () => {
    const file = join(dir, 'ran.txt');
    const turn = [
      call('a', 'bash', { command: `echo ran >> ${file}; sleep 1; echo done` }),
      call('b', 'slow_count', { to: 2, step_ms: 20 }),
    ].join('\n');
    const args = ['run', '-', '--json', ...fleetArgs(), '--batch-id', 'resume-1'];
    const first = startCli(args, { stdin: turn });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    await until(() => existsSync(file), 'the bash call running', 15_000, 20);
    first.kill('SIGKILL');
    await exited;
    const again = await runCli(args, { stdin: turn });
    expect(again.status, again.stderr).to.equal(0);
    const items = (
      JSON.parse(again.stdout.trim().split('\n').at(-1)!) as {
        items: { call_id: string; output: string }[];
      }
    ).items;
    expect(items.find((item) => item.call_id === 'a')!.output).to.contain('done');
    expect(readFileSync(file, 'utf8')).to.equal('ran\n');
  });

  it('says the batch id it used when none is given, in one line', async () => {
    const result = await runCli(['run', '-', ...fleetArgs()], {
      stdin: call('c', 'slow_count', { to: 1, step_ms: 1 }),
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.match(
      /^agenttool: fleet batch ([0-9a-f-]{36}) \(resume it with --batch-id \1\)$/m,
    );
  });

  it('warns on a worker without a secret, and refuses a short one, in one line', async () => {
    const open = startCli(['worker', '--redis', redis.url, '--queue', 'open']);
    const done = finished(open);
    const said = await taking(open);
    open.kill('SIGTERM');
    await done;
    expect(said).to.contain('agenttool: warning: fleet: this worker has no secret');
    const short = join(dir, 'short');
    writeFileSync(short, 'tiny\n');
    const refused = await runCli(['worker', '--redis', redis.url, '--secret-file', short]);
    expect(refused.status).to.equal(2);
    expect(refused.stderr).to.contain(
      `the fleet secret in ${short} is 4 bytes; it must be at least 32`,
    );
  });
});
