/**
 * What an earlier run of a batch left behind, and what a resumed run does with each job.
 *
 * @module
 */
import type { ToolCall, ToolResult } from '../lib/contract.js';
import { argsHashOf, stepsRan, type ToolRecord } from '../lib/records.js';
import { NotReplayedError } from '../lib/errors.js';
import { idempotencyKeyOf, replayOf } from '../lib/replay.js';
import type { ExecuteOptions, ExecutionEvent, Job } from './job.js';

/**
 * Which call a log entry belongs to beyond its id: call ids can repeat (across turns, across
 * batches written to one journal), and an entry of another call under the same id is not this
 * call's. An entry without them (one written before they were) matches by call id alone.
 */
export interface CallFingerprint {
  /** The name of the call's tool. */
  readonly tool?: string;
  /**
   * The hash of the call's arguments: SHA-256 of their canonical JSON (object keys sorted), 64
   * hex digits; the same arguments give the same hash whatever their key order or spacing. Set
   * once `registerSteps()` has run (the Node entry runs it).
   */
  readonly argsHash?: string;
}

/** The namespace of the record a resumed call writes when the log held another call under its id. */
export const RESUME_MISMATCH_NS = 'agenttool:resume-mismatch';

/** The fingerprint of `call`, of the tool named `tool` (unknown when undefined). */
function fingerprintOf(call: ToolCall, tool: string | undefined): CallFingerprint {
  const argsHash = argsHashOf?.(call.args);
  return {
    ...(tool === undefined ? {} : { tool }),
    ...(argsHash === undefined ? {} : { argsHash }),
  };
}

/** A call the earlier run started, as `onStart` wrote it down: see {@link startedCall}. */
export interface StartedCall extends CallFingerprint {
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
export interface EndedCall extends CallFingerprint {
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
export interface RecordedCall extends CallFingerprint {
  /** The call's id. */
  readonly callId: string;
  /** The record. */
  readonly record: ToolRecord;
}

/**
 * What a recorder writes down for a resumable batch: the record, the id of the call that made it
 * and the hash of that call's arguments ({@link CallFingerprint}), JSON-safe. A call of a tool
 * that can pick up its earlier run (a remote task, a call made of steps) is given them back when
 * the batch resumes (see {@link ResumeLog.recorded}).
 *
 * @param record The record, as the recorder receives it.
 * @param call The call, as the recorder receives it.
 * @return The entry for {@link ResumeLog.recorded}.
 */
export function recordedCall(record: ToolRecord, call: ToolCall): RecordedCall {
  return { callId: call.id, record: { ...record }, ...fingerprintOf(call, undefined) };
}

/**
 * The records of an earlier, interrupted run of the same batch, for `executeBatch(jobs, { resume
 * })`. Calls are matched by call id, and by tool name and arguments hash where an entry carries
 * them ({@link CallFingerprint}): an entry of another call under the same id is left out.
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
 * What `onStart` writes down for a resumable batch: the job's call id, the idempotency key it
 * runs under, its tool's name and the hash of its arguments ({@link CallFingerprint}).
 *
 * @param job The job that is starting.
 * @return The entry for {@link ResumeLog.started}.
 */
export function startedCall(job: Job): StartedCall {
  const { call, tool } = job;
  return {
    callId: call.id,
    idempotencyKey: idempotencyKeyOf(call),
    ...fingerprintOf(call, tool?.name),
  };
}

/**
 * What an application writes down when a job ends, for a resumable batch: the final event's call
 * id and its result, or its error as `{ message, code? }`, a form that survives `JSON.stringify`
 * (an Error does not); with the job, its tool's name and arguments hash too ({@link
 * CallFingerprint}). Undefined for a progress event, which is not worth keeping.
 *
 * @param event An event of the batch.
 * @param job The event's job (`jobs[event.index]` of `executeBatch`), so that a resumed batch
 *   keeps this final only for the same call; without it, for any call with this id.
 * @return The entry for {@link ResumeLog.ended}, or undefined.
 */
export function endedCall(event: ExecutionEvent, job?: Job): EndedCall | undefined {
  if (!event.final) return undefined;
  const { callId, error } = event;
  const fingerprint = job === undefined ? {} : fingerprintOf(job.call, job.tool?.name);
  if (error === undefined) return { callId, result: event.result as ToolResult, ...fingerprint };
  const code = (error as { code?: unknown }).code;
  return {
    callId,
    error: typeof code === 'string' ? { message: error.message, code } : { message: error.message },
    ...fingerprint,
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
  /**
   * By batch index, the record of a job the log held only another call for under its id (a
   * fresh call): written through the recorder as the batch starts.
   */
  readonly mismatched: Map<number, ToolRecord>;
}

/**
 * Decides every job of a resumed batch. A job's entries are those under its call id whose
 * fingerprint, where they carry one, is its own. A job with a final that is not a cancellation
 * keeps it. Otherwise, a job that had started (or may have) runs again when its tool is `'safe'`,
 * or `'idempotent'` and its key is the one it ran under (an unset key takes the recorded one); any
 * other ends with a NotReplayedError. A job that had not started runs as new, and so does one
 * whose id the log holds only for other calls (it says so in a record, {@link RESUME_MISMATCH_NS}).
 *
 * @throws TypeError for a log entry without a string `callId`, or an ended entry with neither a
 *   result nor an error.
 */
export function planResume(jobs: readonly Job[], log: ResumeLog): ResumePlan {
  const journal = new CallJournal(log);
  const plan: ResumePlan = { decided: [], run: [], indices: [], mismatched: new Map() };
  jobs.forEach((job, index) => {
    const own = journal.of(job);
    if (own.mismatch !== undefined) plan.mismatched.set(index, own.mismatch);
    const end = own.ended;
    if (end !== undefined && !isCancellation(end.error)) {
      plan.decided.push(
        end.error === undefined ? { result: end.result! } : { error: asError(end.error) },
      );
      return;
    }
    const call = own.started === undefined ? job.call : replayCall(job, own.started, own.recorded);
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

/** A job's own entries in the log: see {@link CallJournal.of}. */
interface OwnEntries {
  readonly ended?: EndedCall | undefined;
  /** Its start, or undefined when it had not started. */
  readonly started?: StartedCall | undefined;
  readonly recorded?: ToolRecord[] | undefined;
  /** When the log held only other calls under its id: the record that says so. */
  readonly mismatch?: ToolRecord;
}

/** The log's entries by call id, checked. */
class CallJournal {
  private readonly byId = new Map<
    string,
    { ended: EndedCall[]; started: StartedCall[]; recorded: RecordedCall[] }
  >();

  constructor(private readonly log: ResumeLog) {
    for (const entry of log.ended ?? []) {
      checkEntry(entry, 'ended');
      if (entry.final === false) continue;
      if (entry.result === undefined && entry.error === undefined)
        throw new TypeError(`resume: ended call "${entry.callId}" has neither result nor error`);
      this.entries(entry.callId).ended.push(entry);
    }
    for (const entry of log.started ?? []) {
      checkEntry(entry, 'started');
      this.entries(entry.callId).started.push(entry);
    }
    for (const entry of log.recorded ?? []) {
      checkEntry(entry, 'recorded');
      const { ns, data } = ((entry as { record?: unknown }).record ?? {}) as {
        ns?: unknown;
        data?: unknown;
      };
      if (typeof ns !== 'string' || typeof data !== 'string')
        throw new TypeError(
          `resume: recorded entry of call "${entry.callId}" needs a record with ns and data`,
        );
      this.entries(entry.callId).recorded.push(entry);
    }
  }

  /**
   * What the log holds of `job`'s earlier run: its first final, its last start (without
   * `started` in the log, every call is taken as started: the safe reading) and its records, in
   * order. An entry whose fingerprint is another call's is left out; when that leaves no entry
   * that names this call by its tool and arguments (a start or a final written with the job), the
   * job is a fresh call: none of the entries under its id count, and `mismatch` is the record that
   * says so.
   */
  of(job: Job): OwnEntries {
    const id = job.call.id;
    const all = this.byId.get(id);
    const assumed = this.log.started === undefined ? { callId: id } : undefined;
    if (all === undefined) return { started: assumed };
    const own = fingerprintOf(job.call, job.tool?.name);
    const others: CallFingerprint[] = [];
    let named = false;
    const mine = <T extends CallFingerprint>(entries: T[]): T[] =>
      entries.filter((entry) => {
        const fits =
          (entry.tool === undefined || entry.tool === own.tool) &&
          (entry.argsHash === undefined ||
            own.argsHash === undefined ||
            entry.argsHash === own.argsHash);
        if (!fits) others.push({ tool: entry.tool, argsHash: entry.argsHash });
        // Only an entry that carries the tool's name names this call: a record's entry carries
        // the arguments hash alone, which a call of another tool may share.
        else if (entry.tool !== undefined) named = true;
        return fits;
      });
    const ended = mine(all.ended);
    const started = mine(all.started);
    const recorded = mine(all.recorded);
    if (others.length > 0 && !named) return { mismatch: mismatchRecord(id, own, others) };
    return {
      ended: ended[0],
      started: started.length > 0 ? started[started.length - 1] : assumed,
      recorded: recorded.length > 0 ? recorded.map((entry) => entry.record) : undefined,
    };
  }

  private entries(id: string) {
    let entries = this.byId.get(id);
    if (entries === undefined)
      this.byId.set(id, (entries = { ended: [], started: [], recorded: [] }));
    return entries;
  }
}

/**
 * The record of a fresh call whose id the log held for other calls only: `{"tool", "argsHash",
 * "earlier": [the other calls' fingerprints]}` under {@link RESUME_MISMATCH_NS}.
 */
function mismatchRecord(
  id: string,
  own: CallFingerprint,
  others: readonly CallFingerprint[],
): ToolRecord {
  // Each other call once: a record's entry (no tool name) repeats the hash of one with it.
  const earlier: CallFingerprint[] = [];
  for (const other of [...others].sort(
    (a, b) => Number(a.tool === undefined) - Number(b.tool === undefined),
  ))
    if (!earlier.some((e) => e.argsHash === other.argsHash && (other.tool ?? e.tool) === e.tool))
      earlier.push(other);
  return { ns: RESUME_MISMATCH_NS, data: JSON.stringify({ callId: id, ...own, earlier }) };
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
