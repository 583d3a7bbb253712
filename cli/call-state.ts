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
  type CallPhase,
  type CallState,
} from '../operators/batch-state.js';
import type { ExecutionEvent, Job } from '../operators/job.js';

export { outputPreview } from '../operators/batch-state.js';
export type { CallPhase };

/** One call as a view shows it. */
export type CallRow = CallState;

/** Every call of a batch, in job order, and whether the batch is over. */
export interface BatchState {
  rows: readonly CallRow[];
  done: boolean;
}

/** The calls of `jobs` before anything ran, with their resource chains. */
export function initialState(
  jobs: readonly Job[],
  options: { sequential?: boolean; maxParallel?: number } = {},
): BatchState {
  return { done: false, rows: initialCallStates(jobs, options) };
}

/** What happened to a batch, at `at` ms since it began. */
export type BatchAction =
  | { type: 'start'; index: number; at: number }
  | { type: 'event'; event: ExecutionEvent; at: number }
  | { type: 'end'; at: number };

/** Folds one action into the state (its `rows` are replaced, never changed) and returns it. */
export function reduceBatch(state: BatchState, action: BatchAction): BatchState {
  if (action.type === 'end') {
    state.done = true;
    return state;
  }
  if (action.type === 'event') {
    state.rows = reduceCallStates(state.rows, action.event, action.at);
    return state;
  }
  const callId = state.rows[action.index]?.callId ?? '';
  state.rows = reduceCallStates(
    state.rows,
    { index: action.index, callId, started: true },
    action.at,
  );
  return state;
}
