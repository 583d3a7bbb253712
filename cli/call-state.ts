/**
 * The state of a batch as a view shows it: one row per call, folded from the engine's events with
 * a plain reducer, so a terminal view, a web page (`scan`) and a test all read the same state.
 *
 * @module
 */
import type { ExecutionEvent, Job, ProgressInfo, ToolOutput } from '../index.js';
// Straight to the files rather than the barrel: the web page bundles this reducer, and the barrel
// would pull the validators (zod, ajv) into it.
import { resourceOf } from '../lib/contract.js';
import { chains } from '../operators/chains.js';

export type CallPhase = 'waiting' | 'running' | 'done' | 'failed' | 'cancelled';

/** One call as a view shows it. */
export interface CallRow {
  index: number;
  callId: string;
  name: string;
  args: string;
  /** The resource the call waits on, "" when none. */
  resource: string;
  /** The job before it in its resource chain, or -1. */
  after: number;
  phase: CallPhase;
  /** When it started and ended, in ms since the batch started; -1 until then. */
  startedAt: number;
  endedAt: number;
  /** The last progress numbers, when the tool reported any. */
  progress?: ProgressInfo;
  /** The last progress text, or the final output's text. */
  message: string;
  /** The final output, once there is one. */
  output?: ToolOutput;
  /** The error message of a failed call. */
  error?: string;
}

/** Every row of a batch, in job order. */
export interface BatchState {
  rows: CallRow[];
  done: boolean;
}

/** An output on one line for a one-line view: whitespace folded, cut at 200 characters. */
export function outputPreview(output: ToolOutput | undefined): string {
  if (output === undefined) return '';
  const text =
    typeof output === 'string'
      ? output
      : output
          .map((part) =>
            part.type === 'input_text' ? part.text : `[${part.type.replace('input_', '')}]`,
          )
          .join(' ');
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > 200 ? `${folded.slice(0, 199)}…` : folded;
}

function isProgressInfo(details: unknown): details is ProgressInfo {
  return (
    typeof details === 'object' &&
    details !== null &&
    typeof (details as ProgressInfo).progress === 'number'
  );
}

/** The rows of `jobs` before anything ran, with their resource chains. */
export function initialState(
  jobs: readonly Job[],
  options: { sequential?: boolean; maxParallel?: number } = {},
): BatchState {
  const after = new Array<number>(jobs.length).fill(-1);
  for (const chain of chains(jobs, options))
    for (let i = 1; i < chain.length; i++) after[chain[i]!] = chain[i - 1]!;
  return {
    done: false,
    rows: jobs.map((job, index) => ({
      index,
      callId: job.call.id,
      name: job.tool.name,
      args: job.call.args,
      resource: resourceOf(job.tool),
      after: after[index]!,
      phase: 'waiting',
      startedAt: -1,
      endedAt: -1,
      message: '',
    })),
  };
}

/** What happened to a batch, as the reducer reads it. */
export type BatchAction =
  | { type: 'start'; index: number; at: number }
  | { type: 'event'; event: ExecutionEvent; at: number }
  | { type: 'end'; at: number };

/** Folds one action into the state, in place, and returns it (cheap enough per event). */
export function reduceBatch(state: BatchState, action: BatchAction): BatchState {
  if (action.type === 'end') {
    state.done = true;
    return state;
  }
  const row = state.rows[action.type === 'start' ? action.index : action.event.index];
  if (row === undefined) return state;
  if (action.type === 'start') {
    row.phase = 'running';
    row.startedAt = action.at;
    return state;
  }
  const { event } = action;
  if (!event.final) {
    if (event.result !== undefined) {
      if (isProgressInfo(event.result.details)) row.progress = event.result.details;
      const line = outputPreview(event.result.output);
      if (line !== '') row.message = line;
    }
    return state;
  }
  // A call cancelled while it waited ends without having started: startedAt stays -1.
  row.endedAt = action.at;
  if (event.error !== undefined) {
    row.phase = (event.error as { code?: string }).code === 'cancelled' ? 'cancelled' : 'failed';
    row.error = event.error.message;
    row.message = event.error.message;
  } else {
    row.phase = 'done';
    row.output = event.result?.output;
    row.message = outputPreview(event.result?.output);
  }
  return state;
}
