/** Waiting in tests for something another process or a timer brings about. */

/**
 * Resolves once `check()` is true, looking every `every` ms; rejects saying `what` did not happen
 * when `within` ms pass first.
 */
export async function until(
  check: () => boolean,
  what: string,
  within = 5_000,
  every = 10,
): Promise<void> {
  const deadline = Date.now() + within;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${within} ms`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
