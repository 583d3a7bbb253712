/**
 * The stop of one job a fleet worker runs (fleet-worker-call.ts): the batch signal its call runs
 * under, aborted by a cancellation from its dispatcher, a lost lock or the worker's close.
 *
 * @module
 */

type AbortListener = EventListenerOrEventListenerObject;

/**
 * A batch signal for `executeBatch` without an AbortController per job (one costs more than the
 * rest of the worker's own work on a call): what the engine and the solo run read of a batch
 * signal (operators/internal/engine.ts, solo-run.ts), whether it has aborted and its `abort`
 * listeners, each called once when {@link abort} is, as an AbortController calls them. The
 * call's tool never sees it: its context has a signal of its own, aborted when the call is
 * cancelled.
 */
export class FleetStop {
  aborted = false;
  reason: unknown = undefined;
  #listeners: AbortListener[] = [];

  addEventListener(type: string, listener: AbortListener | null): void {
    if (type === 'abort' && listener !== null && !this.aborted) this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: AbortListener | null): void {
    if (type !== 'abort') return;
    const at = this.#listeners.indexOf(listener as AbortListener);
    if (at >= 0) this.#listeners.splice(at, 1);
  }

  /** Aborts: the listeners are called once each, in the order they were added. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    const event = new Event('abort');
    for (const listener of listeners)
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
  }

  /** This stop as the `signal` of `executeBatch`'s options. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
