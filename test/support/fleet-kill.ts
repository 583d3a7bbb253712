/**
 * What the tests of a fleet worker killed mid-call share (test/fleet/fleet.test.ts,
 * test/fleet/fleet-recovery.test.ts): how its call ends by its tool's `replay`, the tool a
 * surviving worker runs in its place, and the finals a batch ends with.
 */
import { z } from 'zod';
import { tool, type ExecutionEvent, type Tool } from '../../index.js';

/**
 * The call `k1` of `slow_<replay>` (label `killed-<replay>`) whose worker is killed, and how it
 * ends: a safe call runs again on another worker, an unsafe one fails unrun (`not_replayed`).
 */
export const KILLED_CALL_ENDS = [
  ['safe', 'done killed-safe'],
  [
    'unsafe',
    'error: call "k1" was interrupted and not replayed: tool "slow_unsafe" is not safe to run twice',
  ],
] as const;

/**
 * `slow_<replay>` as a surviving worker runs it: at once, recording each label it runs (the
 * killed worker's, test/support/fleet-worker.ts, prints it and waits).
 */
export function slowSurvivor(replay: 'safe' | 'unsafe'): { tool: Tool; ran: string[] } {
  const ran: string[] = [];
  const survivor = tool({
    name: `slow_${replay}`,
    description: 'x',
    parameters: z.object({ label: z.string() }),
    replay,
    execute: ({ label }) => {
      ran.push(label);
      return `done ${label}`;
    },
  });
  return { tool: survivor, ran };
}

/** The final events' outputs by call index, a failure as `error: <message>`. */
export const finals = (events: ExecutionEvent[]): unknown[] =>
  events
    .filter((e) => e.final)
    .sort((a, b) => a.index - b.index)
    .map((e) => (e.error === undefined ? e.result!.output : `error: ${e.error.message}`));
