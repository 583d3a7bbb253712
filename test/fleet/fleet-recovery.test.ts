/**
 * A fleet worker killed mid-call (SIGKILL) with the fleet's default locks (`lockDuration` 5 s,
 * `stalledInterval` 2.5 s: adapters/redis/fleet-worker.ts, docs/scaling-out.md): its call is
 * recovered within 10 s by a worker of the same defaults already running: a safe call runs again
 * there, an unsafe one fails unrun (`not_replayed`). The test waits for the call's end (up to a
 * generous minute) and then checks how long it took. Needs Debian's redis-server (started here;
 * skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { queueTools, runWorker, type FleetWorker } from '../../adapters/redis/index.js';
import { executeBatch, tool } from '../../index.js';
import { root } from '../support/cli.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';

describe('a killed fleet worker’s calls, with the default locks', function () {
  this.timeout(90_000);
  let redis: TestRedis;

  before(async function () {
    skipWithoutRedis(this, 'the fleet recovery tests');
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  for (const [replay, expected] of [
    ['safe', 'done killed-safe'],
    [
      'unsafe',
      'error: call "k1" was interrupted and not replayed: tool "slow_unsafe" is not safe to run twice',
    ],
  ] as const)
    it(`are recovered within 10 s: ${replay === 'safe' ? 'a safe call runs again' : 'an unsafe call fails unrun (not_replayed)'}`, async () => {
      const queue = `recover-${replay}`;
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(root, 'test/support/fleet-worker.ts'),
          redis.url,
          queue,
          'defaults',
        ],
        { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let said = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (said += d));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const name = `slow_${replay}`;
      const label = `killed-${replay}`;
      const ran: string[] = [];
      const survivorTool = tool({
        name,
        description: 'x',
        parameters: z.object({ label: z.string() }),
        replay,
        execute: ({ label: l }) => {
          ran.push(l);
          return `done ${l}`;
        },
      });
      let survivor: FleetWorker | undefined;
      const dispatcher = queueTools([survivorTool], { connection: redis.url, queue });
      try {
        await until(() => said.includes('ready'), 'the worker’s start', 30_000, 20);
        const done = lastValueFrom(
          executeBatch([
            { tool: dispatcher.tools[0]!, call: { id: 'k1', args: JSON.stringify({ label }) } },
          ]).pipe(toArray()),
        );
        await until(() => said.includes(`started ${label}`), 'the call’s start', 30_000, 20);
        // The other worker, of the defaults, takes nothing until the first one's call is back.
        survivor = await runWorker([survivorTool], { connection: redis.url, queue });
        child.kill('SIGKILL');
        const killed = Date.now();
        await exited;
        const events = await done;
        const took = Date.now() - killed;
        const finals = events
          .filter((e) => e.final)
          .map((e) => (e.error === undefined ? e.result!.output : `error: ${e.error.message}`));
        expect(finals).to.deep.equal([expected]);
        expect(ran).to.deep.equal(replay === 'safe' ? [label] : []);
        expect(took, `recovered ${took} ms after the kill`).to.be.below(10_000);
      } finally {
        child.kill('SIGKILL');
        await dispatcher.close();
        await survivor?.close();
      }
    });
});
