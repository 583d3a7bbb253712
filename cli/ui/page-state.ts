/**
 * The web page's state, folded from the event stream with `scan(applyRecord, emptyPageState())`:
 * the session (live or replay), the current batch's rows (the CLI's own reducer), whether a run
 * is going, the clock that maps the page's time onto the batch's, and the calls waiting for a
 * person (an approval, or the answer to their tool's question).
 *
 * Runs in the browser and in tests: pure apart from mutating the state it is given, which `scan`
 * owns.
 *
 * @module
 */
import {
  countPhases,
  foldCall,
  initialState,
  reduceBatch,
  type BatchState,
  type PhaseCounts,
} from '../call-state.js';
import type { ElicitRequest, FunctionCallOutputItem } from '../../index.js';
import {
  actionOf,
  jobsOfBatch,
  type ApprovalRecord,
  type EventRecord,
  type StartRecord,
  type StreamRecord,
} from './run-records.js';

/** The event stream's connection came up, or was lost (the browser reconnects by itself). */
export interface ConnectionRecord {
  type: 'connection';
  open: boolean;
}

/** What the page folds: a record of the stream, and when it arrived (`performance.now()`). */
export interface PageInput {
  record: StreamRecord | ConnectionRecord;
  receivedAt: number;
}

/** Where the batch is: nothing ran yet, calls are running, or the output is in. */
export type BatchPhase = 'idle' | 'running' | 'finished';

/**
 * A person's decision on a call: approved or refused, how long the call waited for it (ms of
 * batch time, when the page saw it asked), what they wrote beside it, and the arguments (JSON
 * text) they corrected.
 */
export interface Review {
  decision?: 'approved' | 'refused';
  waited?: number;
  note?: string;
  args?: string;
}

/** Everything the page draws from. */
export interface PageState {
  mode: 'live' | 'replay';
  title: string;
  connected: boolean;
  /** The current batch; undefined until the first `batch` record. */
  batch: BatchState | undefined;
  phase: BatchPhase;
  /** Counts `batch` records, so a view can tell a new run from an update of the same one. */
  run: number;
  /** Bumped on every change, so a view can skip a frame with nothing new. */
  version: number;
  /** `receivedAt - at` of the latest timed record: the page time at which the batch started. */
  clockBase: number | undefined;
  /** The function_call_output items, once the batch is over. */
  output: FunctionCallOutputItem[] | undefined;
  /** The calls waiting for a person's approval, by index. */
  approvals: Set<number>;
  /** When each call of {@link approvals} was asked about: the `at` of its `asked` record. */
  waitingSince: Map<number, number>;
  /** The open questions of the calls, by index: what a tool asked and has no answer to yet. */
  questions: Map<number, ElicitRequest>;
  /**
   * How many questions each call asked in this run, by index: the number of its open one, which
   * an answer names so that a stale one (answered in another tab first) reaches no later question.
   */
  asked: Map<number, number>;
  /** Each call's span, when the command traces (`--otlp`): the page links the call to it. */
  traces: Map<number, { traceId: string; spanId: string }>;
  /** A person's decision on a call (with its wait, note and corrected arguments), by index. */
  reviews: Map<number, Review>;
  /** Where a trace is shown (`--trace-url`), if anywhere. */
  traceUrl: string | undefined;
}

/** The state before anything arrived. */
export function emptyPageState(): PageState {
  return {
    mode: 'live',
    title: '',
    connected: false,
    batch: undefined,
    phase: 'idle',
    run: 0,
    version: 0,
    clockBase: undefined,
    output: undefined,
    approvals: new Set(),
    waitingSince: new Map(),
    questions: new Map(),
    asked: new Map(),
    traces: new Map(),
    reviews: new Map(),
    traceUrl: undefined,
  };
}

/** Folds one input into the state, in place, and returns it. A `batch` record starts afresh. */
export function applyRecord(state: PageState, input: PageInput): PageState {
  const { record, receivedAt } = input;
  state.version++;
  switch (record.type) {
    case 'connection':
      state.connected = record.open;
      return state;
    case 'session':
      state.mode = record.mode;
      state.title = record.title;
      state.traceUrl = record.traceUrl;
      return state;
    case 'batch':
      state.batch = initialState(jobsOfBatch(record), { sequential: record.serial === true });
      state.phase = 'idle';
      state.run++;
      state.clockBase = undefined;
      state.output = undefined;
      state.approvals = new Set();
      state.waitingSince = new Map();
      state.questions = new Map();
      state.asked = new Map();
      state.traces = new Map();
      state.reviews = new Map();
      return state;
    case 'trace':
      state.traces.set(record.index, { traceId: record.traceId, spanId: record.spanId });
      return state;
  }
  if (state.batch === undefined) return state;
  if (record.type === 'output') state.output = record.items;
  else {
    state.clockBase = receivedAt - record.at;
    if (state.phase === 'idle') state.phase = 'running';
    askedOf(state, record);
  }
  const action = actionOf(record);
  if (action !== undefined) reduceBatch(state.batch, action);
  else if (record.type === 'approval' && record.state !== 'refused') {
    // Shown as batchState shows it: `approving`, then `waiting` again; a refusal is a final event.
    const { index, at } = record;
    const callId = state.batch.rows[index]?.callId ?? '';
    const approving = record.state === 'asked';
    foldCall(state.batch, { index, callId, approving }, at);
  }
  if (state.batch.done) state.phase = 'finished';
  return state;
}

/**
 * Keeps {@link PageState.approvals} (and when each was asked), {@link PageState.reviews} and
 * {@link PageState.questions} up to date with `record`.
 */
function askedOf(state: PageState, record: StartRecord | ApprovalRecord | EventRecord): void {
  const { index } = record;
  if (record.type === 'approval') {
    if (record.state === 'asked') {
      state.approvals.add(index);
      state.waitingSince.set(index, record.at);
      return;
    }
    const since = state.waitingSince.get(index);
    stopWaiting(state, index);
    const { note, args } = record;
    state.reviews.set(index, {
      decision: record.state,
      ...(since !== undefined && { waited: Math.max(0, record.at - since) }),
      ...(note !== undefined && { note }),
      ...(args !== undefined && { args }),
    });
  } else if (record.type === 'start') stopWaiting(state, index);
  else if (record.final) {
    stopWaiting(state, index);
    state.questions.delete(index);
  } else if (record.question !== undefined) {
    if (record.answer === undefined) {
      state.questions.set(index, record.question);
      state.asked.set(index, (state.asked.get(index) ?? 0) + 1);
    } else state.questions.delete(index);
  }
}

function stopWaiting(state: PageState, index: number): void {
  state.approvals.delete(index);
  state.waitingSince.delete(index);
}

/**
 * How long call `index` has waited for a person's approval at batch time `now` (see
 * {@link batchNow}), in ms; undefined when it is not waiting for one.
 */
export function waitingFor(state: PageState, index: number, now: number): number | undefined {
  const since = state.waitingSince.get(index);
  return since === undefined ? undefined : Math.max(0, now - since);
}

/**
 * The batch's time at page time `now`, in ms: how far a running bar reaches. Once the batch is
 * over, the end of its last call, so the picture stops moving.
 */
export function batchNow(state: PageState, now: number): number {
  const rows = state.batch?.rows ?? [];
  const lastEnd = rows.reduce((end, row) => Math.max(end, row.endedAt), 0);
  if (state.phase !== 'running' || state.clockBase === undefined) return lastEnd;
  return Math.max(lastEnd, now - state.clockBase);
}

/** How many calls are in each phase: the batch's own counts, kept as its rows change. */
export function phaseCounts(state: PageState): PhaseCounts {
  return { ...(state.batch?.counts ?? countPhases([])) };
}
