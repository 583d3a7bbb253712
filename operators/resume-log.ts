/**
 * What an earlier run of a batch left behind, and what a resumed run does with each job.
 *
 * @module
 */
import type { ToolCall, ToolResult } from '../lib/contract.js';
import { stepsRan, type ToolRecord } from '../lib/records.js';
import { NotReplayedError } from '../lib/errors.js';
import { idempotencyKeyOf, replayOf } from '../lib/replay.js';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';

/** A call the earlier run started, as `onStart` wrote it down: see {@link startedCall}. */
export interface StartedCall {
  /** The call's id. */
  readonly callId: string;
  /** The idempotency key it ran under; unset means the call id. */
  readonly idempotencyKey?: string;
}

/**
 * An event of the earlier run: a final event as `executeBatch` emitted it, or as it was saved (an
 * error saved as JSON keeps its `message`, and its `code`). Progress events (`final: false`) are
 * skipped, so the whole saved stream may be passed.
 */
export interface EndedCall {
  /** The call's id. */
  readonly callId: string;
  /** False for a progress event, which is skipped; a final event otherwise. */
  readonly final?: boolean;
  /** The final result of a call that succeeded. */
  readonly result?: ToolResult;
  /** Why the call failed: the Error, or what was saved of it. */
  readonly error?:
    | Error
    | {
        /** The error's message, which the model reads. */
        readonly message: string;
        /** The error's code, when it had one (`timeout`, `not_replayed`). */
        readonly code?: string;
      };
}

/**
 * A record a call made (`context.record`), as the application's recorder wrote it down with the
 * call it belongs to: see {@link recordedCall}.
 */
export interface RecordedCall {
  /** The call's id. */
  readonly callId: string;
  /** The record. */
  readonly record: ToolRecord;
}

/**
 * What a recorder writes down for a resumable batch: the record and the id of the call that made
 * it, JSON-safe. A call of a tool that can pick up its earlier run (a remote task) is given them
 * back when the batch resumes (see {@link ResumeLog.recorded}).
 *
 * @param record The record, as the recorder receives it.
 * @param call The call, as the recorder receives it.
 * @return The entry for {@link ResumeLog.recorded}.
 */
export function recordedCall(record: ToolRecord, call: ToolCall): RecordedCall {
  return { callId: call.id, record: { ...record } };
}

/**
 * The records of an earlier, interrupted run of the same batch, for `executeBatch(jobs, { resume
 * })`. Calls are matched by call id.
 */
export interface ResumeLog {
  /** The final events the earlier run emitted; a call with none had not finished. */
  readonly ended?: Iterable<EndedCall>;
  /**
   * The calls the earlier run started, written by `onStart` before each tool ran. A call absent
   * from it had not started and runs as new. Undefined means unknown: then every call that had
   * not finished is taken as started, which is the safe reading.
   */
  readonly started?: Iterable<StartedCall>;
  /**
   * The records the earlier run's calls made, written down by the recorder (`recordedCall`). A
   * call that had started and not finished runs again with its own on `call.resumed`; one whose
   * tool picks up from them (`Tool.resumes`, a remote task) runs so whatever its `replay`.
   */
  readonly recorded?: Iterable<RecordedCall>;
}

/** The options of {@link executeBatch} and {@link batchResults}: {@link ExecuteOptions} and `resume`. */
export interface BatchOptions extends ExecuteOptions {
  /**
   * The records of an earlier, interrupted run of this batch. A call that had finished keeps its
   * final without running; one that had started and not finished runs again only when its tool's
   * `replay` says that is safe, and otherwise ends with a NotReplayedError; the rest run as new.
   */
  resume?: ResumeLog | undefined;
}

/**
 * What `onStart` writes down for a resumable batch: the job's call id and the idempotency key it
 * runs under.
 *
 * @param job The job that is starting.
 * @return The entry for {@link ResumeLog.started}.
 */
export function startedCall(job: Job): StartedCall {
  return { callId: job.call.id, idempotencyKey: idempotencyKeyOf(job.call) };
}

/**
 * What an application writes down when a job ends, for a resumable batch: the final event's call id and its
 * result, or its error as `{ message, code? }`, a form that survives `JSON.stringify` (an Error
 * does not). Undefined for a progress event, which is not worth keeping.
 *
 * @param event An event of the batch.
 * @return The entry for {@link ResumeLog.ended}, or undefined.
 */
export function endedCall(event: ExecutionEvent): EndedCall | undefined {
  if (!event.final) return undefined;
  const { callId, error } = event;
  if (error === undefined) return { callId, result: event.result as ToolResult };
  const code = (error as { code?: unknown }).code;
  return {
    callId,
    error: typeof code === 'string' ? { message: error.message, code } : { message: error.message },
  };
}

/** How a resumed batch treats each job: a final decided without running, or a job to run. */
export interface ResumePlan {
  /** Per job, in job order: the final it keeps or is given, or undefined when it runs. */
  readonly decided: ({ result: ToolResult } | { error: Error } | undefined)[];
  /** The jobs that run, in job order, each with the call it runs with. */
  readonly run: Job[];
  /** The batch index of each job of `run`. */
  readonly indices: number[];
}

/**
 * Decides every job of a resumed batch. A job with a final that is not a cancellation keeps it.
 * Otherwise, a job that had started (or may have) runs again when its tool is `'safe'`, or
 * `'idempotent'` and its key is the one it ran under (an unset key takes the recorded one); any
 * other ends with a NotReplayedError. A job that had not started runs as new.
 *
 * @throws TypeError for a log entry without a string `callId`, or an ended entry with neither a
 *   result nor an error.
 */
export function planResume(jobs: readonly Job[], log: ResumeLog): ResumePlan {
  const ended = new Map<string, EndedCall>();
  for (const entry of log.ended ?? []) {
    checkEntry(entry, 'ended');
    if (entry.final === false) continue;
    if (entry.result === undefined && entry.error === undefined)
      throw new TypeError(`resume: ended call "${entry.callId}" has neither result nor error`);
    if (!ended.has(entry.callId)) ended.set(entry.callId, entry);
  }
  let started: Map<string, StartedCall> | undefined;
  if (log.started !== undefined) {
    started = new Map();
    for (const entry of log.started) {
      checkEntry(entry, 'started');
      started.set(entry.callId, entry);
    }
  }
  const recorded = new Map<string, ToolRecord[]>();
  for (const entry of log.recorded ?? []) {
    checkEntry(entry, 'recorded');
    const { record } = entry as { record?: unknown };
    const { ns, data } = (record ?? {}) as { ns?: unknown; data?: unknown };
    if (typeof ns !== 'string' || typeof data !== 'string')
      throw new TypeError(
        `resume: recorded entry of call "${entry.callId}" needs a record with ns and data`,
      );
    let list = recorded.get(entry.callId);
    if (list === undefined) recorded.set(entry.callId, (list = []));
    list.push(entry.record);
  }
  const plan: ResumePlan = { decided: [], run: [], indices: [] };
  jobs.forEach((job, index) => {
    const id = job.call.id;
    const end = ended.get(id);
    if (end !== undefined && !isCancellation(end.error)) {
      plan.decided.push(
        end.error === undefined ? { result: end.result! } : { error: asError(end.error) },
      );
      return;
    }
    const start = started === undefined ? { callId: id } : started.get(id);
    const call = start === undefined ? job.call : replayCall(job, start, recorded.get(id));
    if (call instanceof Error) {
      plan.decided.push({ error: call });
      return;
    }
    plan.decided.push(undefined);
    plan.run.push(call === job.call ? job : { ...job, call });
    plan.indices.push(index);
  });
  return plan;
}

/**
 * The call an interrupted job runs again with (its earlier records on `resumed`), or the
 * NotReplayedError that ends it, which names the steps its records say it finished.
 */
function replayCall(
  job: Job,
  start: StartedCall,
  records: readonly ToolRecord[] | undefined,
): Job['call'] | NotReplayedError {
  const { tool, call } = job;
  const again = replayKey(job, start, records !== undefined && tool.resumes?.(records) === true);
  if (typeof again === 'string')
    return new NotReplayedError(call.id, tool.name, again, stepsRan?.(records));
  if (records === undefined) return again;
  // With its key filled in, `context.call` is this call as it is, `resumed` included.
  return {
    ...again,
    idempotencyKey: idempotencyKeyOf(again),
    resumed: Object.freeze([...records]),
  };
}

/** The call an interrupted job runs again with, or why it does not; `picksUp`: it resumes. */
function replayKey(job: Job, start: StartedCall, picksUp: boolean): Job['call'] | string {
  const { tool, call } = job;
  const replay = picksUp ? 'safe' : replayOf(tool);
  const recorded = start.idempotencyKey ?? call.id;
  if (replay === 'unsafe') return `tool "${tool.name}" is not safe to run twice`;
  if (call.idempotencyKey === undefined || call.idempotencyKey === '') {
    return recorded === call.id ? call : { ...call, idempotencyKey: recorded };
  }
  const key = idempotencyKeyOf(call);
  if (replay === 'safe' || key === recorded) return call;
  return (
    `tool "${tool.name}" runs twice only under one idempotency key, and the key changed from ` +
    `${JSON.stringify(recorded)} to ${JSON.stringify(key)}`
  );
}

function isCancellation(error: EndedCall['error']): boolean {
  return error !== undefined && (error as { code?: unknown }).code === 'cancelled';
}

function asError(error: NonNullable<EndedCall['error']>): Error {
  if (error instanceof Error) return error;
  const rebuilt = new Error(String(error.message));
  if (typeof error.code === 'string') Object.assign(rebuilt, { code: error.code });
  return rebuilt;
}

function checkEntry(entry: { callId?: unknown } | null | undefined, kind: string): void {
  if (typeof entry !== 'object' || entry === null || typeof entry.callId !== 'string')
    throw new TypeError(`resume: every ${kind} entry needs a string callId`);
}
