/**
 * The official MCP tasks client (`@modelcontextprotocol/ext-tasks/client`) against `agenttool
 * serve --stateless --tasks redis://...`: a client process starts a task and is killed; a new
 * process resumes the task from the reference the client serialized and reads its result.
 * Needs Debian's redis-server (started here; skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { finished, root, serveCli, type ServingCli } from '../../support/cli.js';
import { lines } from '../../support/lines.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../../support/redis.js';

const clientScript = resolve(root, 'test/fixtures/ext-tasks-client.mjs');

describe('the official ext-tasks client on agenttool serve --stateless --tasks redis://', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let served: ServingCli;

  before(async function () {
    skipWithoutRedis(this, 'the ext-tasks client resume test');
    redis = await startRedis();
    served = serveCli(['--stateless', '--tasks', redis.url]);
    await served.url;
  });

  after(async () => {
    if (served !== undefined) {
      served.child.kill('SIGTERM');
      await served.done;
    }
    await redis?.stop();
  });

  it('resumes, in a new process, a task whose client process was killed, and reads its result', async () => {
    const url = (await served.url).href;
    const starter = spawn(
      process.execPath,
      [clientScript, 'start', url, 'slow_count', JSON.stringify({ to: 4, step_ms: 300 })],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const starterDone = finished(starter);
    const starterExit = new Promise<NodeJS.Signals | null>((done) =>
      starter.once('exit', (_code, signal) => done(signal)),
    );
    const reference = JSON.parse(await lines(starter.stdout!).seen('{')) as {
      endpointId: string;
      generation: string;
      taskId: string;
    };
    expect(reference).to.include({ endpointId: url, generation: 'v2' });
    starter.kill('SIGKILL');
    expect(await starterExit).to.equal('SIGKILL');
    await starterDone;

    const resumer = spawn(
      process.execPath,
      [clientScript, 'resume', url, JSON.stringify(reference)],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const { status, stdout, stderr } = await finished(resumer);
    expect(status, stderr).to.equal(0);
    const outcome = JSON.parse(stdout) as {
      status: string;
      result: unknown;
      task: { taskId: string; status: string };
    };
    expect(outcome.status).to.equal('completed');
    expect(outcome.task).to.include({ taskId: reference.taskId, status: 'completed' });
    expect(outcome.result).to.deep.equal({
      resultType: 'complete',
      content: [{ type: 'text', text: 'counted to 4' }],
    });
  });
});
