/**
 * The records of a run, as `agenttool run --json` writes them one per line and as the web front
 * streams them one per Server-Sent Event: a `batch` record naming the jobs, a `start` record when a
 * call starts, an `approval` record when a call waits for a person's approval and when it has it,
 * an `event` record per ExecutionEvent (with `at`, ms since the batch started), and
 * an `output` record with the function_call_output items once the batch is over. A saved run and
 * a live one read the same, so the page replays a file with the code that shows a live batch.
 *
 * This module runs in the browser too: it imports nothing that needs Node.
 *
 * @module
 */
import { EMPTY } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  ExecutionEvent,
  FunctionCallOutputItem,
  Job,
  Tool,
  ToolResult,
} from '../../index.js';
import type { BatchAction } from '../call-state.js';

/** One job as the `batch` record names it. */
export interface JobRecord {
  index: number;
  callId: string;
  name: string;
  args: string;
  /** The resource the call waits on, "" when none. */
  resource: string;
}

/** The first record of a run: the jobs, in order. `serial` is set when the batch ran one at a time. */
export interface BatchRecord {
  type: 'batch';
  jobs: JobRecord[];
  serial?: boolean;
}

/** A call started (it had its slot and its turn). */
export interface StartRecord {
  type: 'start';
  index: number;
  at: number;
}

/** An error as JSON: its name, its code when it has one, and its message. */
export interface ErrorRecord {
  name: string;
  code?: string;
  message: string;
}

/**
 * A call waits for a person's approval (`asked`), or has had the answer: with what the person
 * wrote beside it (`note`) and, approving, the arguments they corrected (`args`, JSON text).
 */
export interface ApprovalRecord {
  type: 'approval';
  index: number;
  at: number;
  state: 'asked' | 'approved' | 'refused';
  note?: string;
  args?: string;
}

/**
 * One ExecutionEvent, with `at`; a final event carries `result` or `error`, a question event its
 * `question` (and its `answer` once answered).
 */
export interface EventRecord {
  type: 'event';
  at: number;
  index: number;
  callId: string;
  final: boolean;
  result?: ToolResult;
  error?: ErrorRecord;
  question?: ElicitRequest;
  answer?: ElicitResult;
}

/** The last record of a run: the function_call_output items in the model's order. */
export interface OutputRecord {
  type: 'output';
  items: FunctionCallOutputItem[];
}

/**
 * A call's span, when the command traces (`--otlp`, docs/telemetry.md): the page links the call
 * to its trace.
 */
export interface TraceRecord {
  type: 'trace';
  index: number;
  traceId: string;
  spanId: string;
  /** When the call's span started, in ms since the batch did. */
  at: number;
}

/** Any record of a run. */
export type RunRecord =
  BatchRecord | StartRecord | ApprovalRecord | EventRecord | OutputRecord | TraceRecord;

/**
 * What the web front sends first on each event stream, before the current run's records: whether
 * it runs the turn live or replays a saved run, and what it is showing (a file name).
 */
export interface SessionRecord {
  type: 'session';
  mode: 'live' | 'replay';
  title: string;
  /**
   * Where a call's trace is shown (`--trace-url`): a URL with `{traceId}` (and `{spanId}`) in it.
   */
  traceUrl?: string;
}

/** A record of the web front's event stream. */
export type StreamRecord = SessionRecord | RunRecord;

/** An error record as an Error the reducer reads (`code` decides "cancelled" from "failed"). */
export function errorFromRecord(record: ErrorRecord): Error {
  const error = new Error(record.message) as Error & { code?: string };
  error.name = record.name;
  if (record.code !== undefined) error.code = record.code;
  return error;
}

/**
 * The reducer's action for a record; undefined for the `batch` record, which starts a new state
 * (see {@link jobsOfBatch}) rather than changing one. The `output` record ends the batch.
 */
export function actionOf(record: RunRecord): BatchAction | undefined {
  switch (record.type) {
    case 'batch':
    case 'approval':
    case 'trace':
      return undefined;
    case 'start':
      return record;
    case 'output':
      return { type: 'end', at: -1 };
    case 'event': {
      const { at, index, callId, final, result, error, question, answer } = record;
      const event: ExecutionEvent =
        error !== undefined
          ? { index, callId, final: true, error: errorFromRecord(error) }
          : question !== undefined
            ? { index, callId, final: false, question, ...(answer && { answer }) }
            : { index, callId, final, result: result as ToolResult };
      return { type: 'event', at, event };
    }
  }
}

const never = (): typeof EMPTY => EMPTY;

/**
 * Stand-in jobs for a `batch` record, enough for `initialState` to rebuild the rows and their
 * resource chains (name, arguments, resource); their tools cannot run.
 */
export function jobsOfBatch(batch: BatchRecord): Job[] {
  return batch.jobs.map((job) => {
    const tool: Tool = { name: job.name, description: '', resource: job.resource, execute: never };
    return { tool, call: { id: job.callId, args: job.args } };
  });
}

/** Whether a parsed JSON value looks like a run record (its `type` is one of the five). */
export function isRunRecord(value: unknown): value is RunRecord {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return (
    type === 'batch' ||
    type === 'start' ||
    type === 'approval' ||
    type === 'event' ||
    type === 'output'
  );
}

/** The `event` record of an ExecutionEvent at `at` ms: the error as {@link ErrorRecord}, no stack. */
export function eventRecord(event: ExecutionEvent, at: number): EventRecord {
  const record: EventRecord = {
    type: 'event',
    at,
    index: event.index,
    callId: event.callId,
    final: event.final,
  };
  if (event.result !== undefined) record.result = event.result;
  if (event.question !== undefined) {
    record.question = event.question;
    if (event.answer !== undefined) record.answer = event.answer;
  }
  if (event.error !== undefined) {
    const code = (event.error as { code?: unknown }).code;
    record.error = { name: event.error.name, message: event.error.message };
    if (typeof code === 'string') record.error.code = code;
  }
  return record;
}
