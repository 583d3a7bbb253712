/** `slow_count`: counts up with a pause per step, reporting numeric progress; stops when cancelled. */
import { z } from 'zod';
import { tool } from '../tool-contract.js';

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export const slowCount = tool({
  name: 'slow_count',
  description: 'Count from 1 to `to`, pausing `step_ms` between steps, reporting progress.',
  parameters: z.object({
    to: z.number().int().min(1).max(1000).describe('Where to stop counting'),
    step_ms: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(100)
      .describe('Pause between steps, in ms'),
  }),
  annotations: { title: 'Slow count', readOnlyHint: true, openWorldHint: false },
  // Long enough to outlive a connection: served as a task to a client that takes tasks.
  task: true,
  // It only counts: a second run has no further effect.
  replay: 'safe',
  async *execute({ to, step_ms }, context) {
    for (let i = 1; i <= to; i++) {
      await pause(step_ms, context.signal);
      yield { progress: i, total: to, message: `counted ${i} of ${to}` };
    }
    return `counted to ${to}`;
  },
});
