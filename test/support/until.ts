/** Waiting in tests for something another process or a timer brings about. */
import { scaled } from './time.js';

/**
 * Resolves once `check()` is true, looking every `every` ms; rejects saying `what` did not happen
 * when `within` ms (scaled for this machine: test/support/time.ts) pass first, and what
 * `saw()` then returns when given.
 */
export async function until(
  check: () => boolean,
  what: string,
  within = 5_000,
  every = 10,
  saw?: () => string,
): Promise<void> {
  const ceiling = scaled(within);
  const deadline = Date.now() + ceiling;
  while (!check()) {
    if (Date.now() > deadline) {
      const seen = saw === undefined ? '' : `; saw:\n${saw()}`;
      throw new Error(`${what} did not happen within ${ceiling} ms${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
