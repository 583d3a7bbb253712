/**
 * A clock for a batch's states: while a call runs, its `elapsed` goes on counting between its
 * events, so a view's time column moves for a call that reports nothing.
 *
 * @module
 */
import {
  asyncScheduler,
  defer,
  interval,
  map,
  of,
  startWith,
  switchMap,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import type { CallState } from '../../operators/batch-state.js';

/** Options of {@link tickElapsed}. */
export interface TickElapsedOptions {
  /** How often a running call's `elapsed` moves, in ms. Default 100. */
  period?: number | undefined;
  /**
   * Whose `now()` and timers it reads; the one `batchState` was given (default rxjs's
   * `asyncScheduler`, virtual under TestScheduler).
   */
  scheduler?: SchedulerLike | undefined;
}

/** Started and not ended: the call whose `elapsed` a clock moves. */
function isRunning(call: CallState): boolean {
  return call.startedAt >= 0 && call.endedAt < 0;
}

/** The states at `at` ms since the batch began: each running call's elapsed to that instant. */
function atTime(calls: readonly CallState[], at: number): readonly CallState[] {
  if (!calls.some(isRunning)) return calls;
  return calls.map((call) =>
    isRunning(call) && at - call.startedAt > call.elapsed
      ? { ...call, elapsed: at - call.startedAt }
      : call,
  );
}

/**
 * Passes `batchState`'s states on and, while a call runs, the same states again every `period`
 * ms with each running call's `elapsed` counted to that instant (a call that did not change keeps
 * its object; an ended call keeps the `elapsed` it ended with). Put it right after `batchState`,
 * subscribed at the same instant, so both count from the same start.
 *
 * ```text
 * batchState:   w-r--------d|      r: running, started at 2; d: done at 11
 * tickElapsed:  w-r--a--b--d|      a: elapsed 3, b: elapsed 6 (period 3), d: elapsed 9
 * ```
 */
export function tickElapsed(
  options: TickElapsedOptions = {},
): OperatorFunction<readonly CallState[], readonly CallState[]> {
  const period = options.period ?? 100;
  const scheduler = options.scheduler ?? asyncScheduler;
  if (!(period > 0) || !Number.isFinite(period))
    throw new RangeError(`period must be a positive finite number of ms, got ${String(period)}`);
  return (states) =>
    defer(() => {
      const began = scheduler.now();
      const since = (): number => scheduler.now() - began;
      return states.pipe(
        switchMap((calls) =>
          calls.some(isRunning)
            ? interval(period, scheduler).pipe(
                map(() => atTime(calls, since())),
                startWith(atTime(calls, since())),
              )
            : of(calls),
        ),
      );
    });
}
