/**
 * How a fleet worker stops a job's call (fleet-worker-call.ts) when its dispatcher cancels it,
 * its lock is lost or the worker closes: the call's batch is unsubscribed, which cancels the call
 * (its tool's signal aborts, its teardown runs), and the run ends with the CancelledError final
 * the engine gives a call its batch signal cancels. No AbortController per job: the batch runs
 * without a batch signal.
 *
 * @module
 */
import type { Observable, Subscription } from 'rxjs';
import { CancelledError } from '../../lib/errors.js';
import type { ExecutionEvent } from '../../operators/job.js';

/** One job's batch of one call, run until its final event or until stopped. */
export class StoppableRun {
  #stopped = false;
  #end: (() => void) | undefined = undefined;

  /**
   * Runs `batch` (one call, `callId`): its final event, or a CancelledError final once
   * {@link stop} is called (at once, the call not run, when it was already). Every other event
   * goes to `progress` as it comes.
   */
  run(
    callId: string,
    batch: Observable<ExecutionEvent>,
    progress: (event: ExecutionEvent) => void,
  ): Promise<ExecutionEvent> {
    const cancelled = (): ExecutionEvent => ({
      index: 0,
      callId,
      final: true,
      error: new CancelledError(),
    });
    if (this.#stopped) return Promise.resolve(cancelled());
    return new Promise<ExecutionEvent>((resolve, reject) => {
      let final: ExecutionEvent | undefined;
      const subscription: Subscription = batch.subscribe({
        next: (event) => (event.final ? (final = event) : progress(event)),
        error: reject,
        complete: () =>
          final === undefined
            ? reject(new Error(`fleet: call ${callId} ended without a final event`))
            : resolve(final),
      });
      this.#end = () => {
        subscription.unsubscribe();
        resolve(cancelled());
      };
      // Stopped while its batch was being subscribed.
      if (this.#stopped) this.#end();
    });
  }

  /** Stops the call: its batch is unsubscribed, and its run ends cancelled. Once only. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#end?.();
  }

  /** Whether {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }
}
