/**
 * A fleet worker killed mid-call (SIGKILL) with the fleet's default locks (`lockDuration` 5 s,
 * `stalledInterval` 2.5 s: adapters/redis/fleet-worker.ts, docs/scaling-out.md): its call is
 * recovered within 10 s by a worker of the same defaults already running: a safe call runs again
 * there, an unsafe one fails unrun (`not_replayed`). The test waits for the call's end (up to a
 * generous minute) and then checks how long it took. Needs Debian's redis-server (started here;
 * skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { queueTools, runWorker, type FleetWorker } from '../../adapters/redis/index.js';
import { executeBatch } from '../../index.js';
import { startScript } from '../support/cli.js';
import { finals, KILLED_CALL_ENDS, slowSurvivor } from '../support/fleet-kill.js';
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

  for (const [replay, expected] of KILLED_CALL_ENDS)
    it(`are recovered within 10 s: ${replay === 'safe' ? 'a safe call runs again' : 'an unsafe call fails unrun (not_replayed)'}`, async () => {
      const queue = `recover-${replay}`;
      const dying = startScript('test/support/fleet-worker.ts', [redis.url, queue, 'defaults']);
      const label = `killed-${replay}`;
      const { tool: survivorTool, ran } = slowSurvivor(replay);
      let survivor: FleetWorker | undefined;
      const dispatcher = queueTools([survivorTool], { connection: redis.url, queue });
      try {
        await until(() => dying.said().includes('ready'), 'the worker’s start', 30_000, 20);
        const done = lastValueFrom(
          executeBatch([
            { tool: dispatcher.tools[0]!, call: { id: 'k1', args: JSON.stringify({ label }) } },
          ]).pipe(toArray()),
        );
        await until(
          () => dying.said().includes(`started ${label}`),
          'the call’s start',
          30_000,
          20,
        );
        // The other worker, of the defaults, takes nothing until the first one's call is back.
        survivor = await runWorker([survivorTool], { connection: redis.url, queue });
        dying.child.kill('SIGKILL');
        const killed = Date.now();
        await dying.exited;
        const events = await done;
        const took = Date.now() - killed;
        expect(finals(events)).to.deep.equal([expected]);
        expect(ran).to.deep.equal(replay === 'safe' ? [label] : []);
        expect(took, `recovered ${took} ms after the kill`).to.be.below(10_000);
      } finally {
        dying.child.kill('SIGKILL');
        await dispatcher.close();
        await survivor?.close();
      }
    });
});
