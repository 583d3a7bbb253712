/**
 * A fleet worker in a process of its own, for the test that kills it mid-call
 * (test/fleet/fleet.test.ts): the tools of `toolsOf` below, on the queue of the Redis at the given URL.
 * It prints `ready` once it takes calls, and `started <label>` as each call starts.
 *
 * Its locks are short (`lockDuration` 1 s, `stalledInterval` 0.5 s), or the fleet's defaults when
 * a third argument `defaults` is given (test/fleet/fleet-recovery.test.ts).
 *
 * Run: `node --import tsx test/support/fleet-worker.ts <redis url> <queue> [defaults]`.
 */
import { z } from 'zod';
import { runWorker } from '../../adapters/redis/index.js';
import { tool } from '../../index.js';

const [url, queue, locks] = process.argv.slice(2) as [string, string, string | undefined];
const slow = (name: string, replay: 'safe' | 'unsafe') =>
  tool({
    name,
    description: `Waits 1.5 s (${replay} to run again).`,
    parameters: z.object({ label: z.string() }),
    replay,
    execute: async ({ label }) => {
      process.stdout.write(`started ${label}\n`);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return `done ${label}`;
    },
  });
await runWorker([slow('slow_safe', 'safe'), slow('slow_unsafe', 'unsafe')], {
  connection: url,
  queue,
  ...(locks === 'defaults' ? {} : { lockDuration: 1_000, stalledInterval: 500 }),
});
process.stdout.write('ready\n');
