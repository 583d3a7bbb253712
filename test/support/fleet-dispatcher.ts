/**
 * A fleet dispatcher in a process of its own, for the test that kills it mid-batch and runs the
 * batch again (test/fleet/fleet.test.ts): four calls of `counted_slow` sent to the queue of the Redis at
 * the given URL, each printed (`final <call id>`) as it ends.
 *
 * Run: `node --import tsx test/support/fleet-dispatcher.ts <redis url>`.
 */
import { z } from 'zod';
import { queueTools } from '../../adapters/redis/index.js';
import { executeBatch, tool } from '../../index.js';

const [url] = process.argv.slice(2) as [string];
const counted = tool({
  name: 'counted_slow',
  description: 'x',
  parameters: z.object({ label: z.string(), ms: z.number() }),
  execute: () => 'never here: run by the workers',
});
const fleet = queueTools([counted], { connection: url });
executeBatch(
  [1, 2, 3, 4].map((n) => ({
    tool: fleet.tools[0]!,
    call: { id: `d${n}`, args: JSON.stringify({ label: `restart-${n}`, ms: n * 400 }) },
  })),
  { maxParallel: 4 },
).subscribe((event) => {
  if (event.final) process.stdout.write(`final ${event.callId}\n`);
});
