/**
 * How `serve` waits: until its connection ends, or until a signal.
 *
 * @module
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves when `ended` does (undefined) or at the first SIGINT, SIGTERM or SIGHUP (its name; a
 * second one exits).
 */
export async function untilSignal(ended: Promise<void>): Promise<NodeJS.Signals | undefined> {
  const stops = new Map<NodeJS.Signals, () => void>();
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    for (const signal of SIGNALS) stops.set(signal, () => resolve(signal));
  });
  for (const [signal, stop] of stops) process.once(signal, stop);
  try {
    return await Promise.race([ended.then(() => undefined), signalled]);
  } finally {
    for (const [signal, stop] of stops) process.off(signal, stop);
  }
}
