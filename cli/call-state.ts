/**
 * The state of a batch as the terminal views and the web page show it: the calls as the public
 * `batchState` operator folds them (one reducer for every view), and whether the batch is over.
 *
 * @module
 */
// Straight to the file rather than the barrel: the web page bundles this reducer, and the barrel
// would pull the validators (zod, ajv) into it.
import {
  initialCallStates,
  reduceCallStates,
  type BatchStateInput,
  type CallPhase,
  type CallState,
} from '../operators/batch-state.js';
import type { ExecutionEvent, Job } from '../operators/job.js';

export { outputPreview } from '../operators/batch-state.js';
export type { CallPhase };

/** One call as a view shows it. */
export type CallRow = CallState;

/** How many calls of a batch are in each phase. */
export type PhaseCounts = Record<CallPhase, number>;

/**
 * Every call of a batch, in job order, how many are in each phase, and whether the batch is over.
 * `rows` is one array for the whole batch, changed in place: a call that changes gets a new row
 * object, the others keep theirs. `counts` is kept in step by {@link foldCall}, so that a view
 * that shows the counts (the live view's line for the calls off screen) reads them without a
 * pass over every row: a pass per frame, over a batch whose run time grows with its size, made a
 * run of n calls take n² steps.
 */
export interface BatchState {
  rows: CallRow[];
  counts: PhaseCounts;
  done: boolean;
}

/** How many of `rows` are in each phase. */
export function countPhases(rows: readonly CallRow[]): PhaseCounts {
  const counts: PhaseCounts = {
    waiting: 0,
    approving: 0,
    running: 0,
    asking: 0,
    done: 0,
    failed: 0,
    cancelled: 0,
  };
  for (const row of rows) counts[row.phase]++;
  return counts;
}

/** The calls of `jobs` before anything ran, with their resource chains. */
export function initialState(
  jobs: readonly Job[],
  options: { sequential?: boolean; maxParallel?: number } = {},
): BatchState {
  const rows = [...initialCallStates(jobs, options)];
  return { done: false, rows, counts: countPhases(rows) };
}

/** What happened to a batch, at `at` ms since it began. */
export type BatchAction =
  | { type: 'start'; index: number; at: number }
  | { type: 'event'; event: ExecutionEvent; at: number }
  | { type: 'end'; at: number };

/**
 * Folds `input` into its call's row, in place, and moves the call between the phase counts when
 * its phase changed: the public reducer over that one call, so that an event costs the same
 * whatever the size of the batch (folding the whole array copies it, which made a run of n calls
 * take n² steps).
 */
export function foldCall(state: BatchState, input: BatchStateInput, at: number): void {
  const row = state.rows[input.index];
  if (row === undefined) return;
  const next = reduceCallStates([row], { ...input, index: 0 }, at)[0]!;
  state.rows[input.index] = next;
  if (next.phase === row.phase) return;
  state.counts[row.phase]--;
  state.counts[next.phase]++;
}

/** Folds one action into the state, in place, and returns it. */
export function reduceBatch(state: BatchState, action: BatchAction): BatchState {
  if (action.type === 'end') state.done = true;
  else if (action.type === 'event') foldCall(state, action.event, action.at);
  else {
    const callId = state.rows[action.index]?.callId ?? '';
    foldCall(state, { index: action.index, callId, started: true }, action.at);
  }
  return state;
}
