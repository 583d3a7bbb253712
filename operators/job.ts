/**
 * The shapes the engine reads and writes: a job, the options of a batch, and the events it emits.
 *
 * @module
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  Elicitor,
  Tool,
  ToolCall,
  ToolResult,
} from '../lib/contract.js';
import type { Recorder } from '../lib/records.js';

/** The bound on running calls when the options set none: {@link ExecuteOptions.maxParallel}. */
export const DEFAULT_MAX_PARALLEL = 8;

/** One call of a batch: the tool to run and the call to run it with. */
export interface Job {
  /** The tool to run. */
  readonly tool: Tool;
  /** The call to run it with: the function_call's id and raw arguments. */
  readonly call: ToolCall;
  /**
   * Cancels this call alone. Aborting it ends the call with a CancelledError final event (see
   * below for the reason), whatever it is doing: running, its tool is unsubscribed and its
   * context's signal aborts; in `onStart`, its tool never starts; waiting for a slot or its
   * resource turn, it never starts and its resource chain goes on to the next call. A signal
   * already aborted when the job arrives ends the call at once (for `executeBatch`, at
   * subscription, before anything runs). Aborting after the call's final event does nothing.
   * The final's error is the signal's reason when that is an agenttool error (a CancelledError of
   * the application's, with its message), otherwise a CancelledError (with another Error reason's message,
   * and that reason as its cause).
   */
  readonly signal?: AbortSignal;
  /**
   * Whether this call detaches (see {@link ExecutionProgressEvent.detached}): true or false
   * overrides the tool's `detach`; undefined leaves it to the tool.
   */
  readonly detach?: boolean;
}

/**
 * One step of a batch: a {@link ExecutionProgressEvent} of job `index` (`final` false), or its one final
 * event, exactly once per job: a {@link ExecutionResultEvent} when the call succeeded, an
 * {@link ExecutionErrorEvent} when it failed. Completions arrive in completion order, not job order.
 *
 * A running job may also ask a question ({@link ExecutionQuestionEvent}, `final` false), when
 * `options.elicitor` is set and its tool calls `context.elicit`.
 *
 * A discriminated union: after `if (event.final && event.error === undefined)` `event.result` is a
 * ToolResult, after `if (!event.final && event.question === undefined)` too; an event with both a result and an error, a final
 * event with neither, or a progress event with an error does not type-check.
 */
export type ExecutionEvent =
  ExecutionProgressEvent | ExecutionQuestionEvent | ExecutionResultEvent | ExecutionErrorEvent;

/** What every {@link ExecutionEvent} carries. */
interface EventOfJob {
  /** The job's position in the batch (`executeBatch`) or in arrival order (`executeCalls`). */
  readonly index: number;
  /** The job's call id, as the function_call_output must echo it. */
  readonly callId: string;
}

/**
 * What a person's answer to `approve` ({@link Approval}) added to a call, on its final event and
 * its settled entry; absent when there was none (no approval, or a plain true or false).
 */
export interface Reviewed {
  /** The note the person wrote beside their approval or refusal. */
  readonly note?: string;
  /** The arguments the call ran with, as JSON text, when the person who approved it edited them. */
  readonly editedArgs?: string;
}

/** A progress update of a running job. */
export interface ExecutionProgressEvent extends EventOfJob {
  /** Not the job's final event. */
  readonly final: false;
  /** The progress update. */
  readonly result: ToolResult;
  /** Never set on progress. */
  readonly error?: undefined;
  /** Never set on progress: what tells it from an {@link ExecutionQuestionEvent}. */
  readonly question?: undefined;
  /**
   * Set on the one event that says a detached call (`job.detach`, else `Tool.detach`) has started
   * and runs on: emitted once its tool is subscribed and still running, after any progress it
   * emitted while subscribed. Its `result` is what the model reads for the call this turn
   * (`DETACHED_OUTPUT`); the job's final event comes later, as any job's. Never set in a batch
   * without detached calls.
   */
  readonly detached?: true;
}

/**
 * A question a running job's tool asks through `context.elicit`: emitted when asked (`answer`
 * undefined), and again once answered, with the answer (`cancel` when the call ended or was
 * cancelled first, or when the elicitor failed). Both come before the job's final event. Only a
 * batch with an `elicitor` asks; without one, a question is declined at once and not shown.
 */
export interface ExecutionQuestionEvent extends EventOfJob {
  /** Not the job's final event. */
  readonly final: false;
  /** What the tool asks. */
  readonly question: ElicitRequest;
  /** Undefined when asked; the answer when answered. */
  readonly answer?: ElicitResult;
  /** Never set on a question. */
  readonly result?: undefined;
  /** Never set on a question. */
  readonly error?: undefined;
  /** Never set on a question. */
  readonly detached?: undefined;
}

/** The final event of a job that succeeded. */
export interface ExecutionResultEvent extends EventOfJob, Reviewed {
  /** The job's one final event. */
  readonly final: true;
  /** The call's final result. */
  readonly result: ToolResult;
  /** Never set on a success. */
  readonly error?: undefined;
  /** Never set on a final event. */
  readonly question?: undefined;
  /** Never set on a final event. */
  readonly detached?: undefined;
}

/** The final event of a job that failed. */
export interface ExecutionErrorEvent extends EventOfJob, Reviewed {
  /** The job's one final event. */
  readonly final: true;
  /** Why the call failed. */
  readonly error: Error;
  /** Never set on a failure. */
  readonly result?: undefined;
  /** Never set on a final event. */
  readonly question?: undefined;
  /** Never set on a final event. */
  readonly detached?: undefined;
}

/**
 * How a batch of jobs settled, in job order: each job's result or its error. Narrows on either
 * field: after `if (s.error === undefined)`, `s.result` is a ToolResult.
 */
export type SettledResult =
  | ({
      /** The final result of a call that succeeded. */
      readonly result: ToolResult;
      /** Never set on a success. */
      readonly error?: undefined;
    } & Reviewed)
  | ({
      /** Why the call failed. */
      readonly error: Error;
      /** Never set on a failure. */
      readonly result?: undefined;
    } & Reviewed);

/**
 * An application's answer to `approve`: true lets the call go on; false refuses it (its final is a
 * NotApprovedError `call "<id>" was not approved`); `{ approved: false, reason }` refuses it with
 * the reason as the error's message, which the model reads.
 *
 * The object forms carry what the person typed beside the decision and, when approving, the
 * arguments they corrected (docs/people.md):
 * - `note`: the person's words, which reach the model with the call's outcome (the final event's
 *   `note`, and the call's output item made by `toOutputItems`).
 * - `args` (approving only): the arguments the call runs with instead of the model's, as JSON text
 *   or a plain object. They are checked against the tool's `parameters` as the model's are; ones
 *   that do not fit, or that name another resource than the one the call waits its turn on,
 *   refuse the call with a NotApprovedError saying why.
 */
export type Approval =
  | boolean
  | {
      /** Approved. */
      readonly approved: true;
      /** What the person wrote beside the approval, for the model. */
      readonly note?: string | undefined;
      /** The arguments the call runs with, as the person corrected them. */
      readonly args?: string | { readonly [key: string]: unknown } | undefined;
    }
  | {
      /** Refused. */
      readonly approved: false;
      /** Why, for the model: the NotApprovedError's message. */
      readonly reason?: string | undefined;
      /** What the person wrote beside the refusal, for the model. */
      readonly note?: string | undefined;
    };

/** How a batch runs. Every field is optional. */
export interface ExecuteOptions {
  /**
   * At most this many calls run at once. Defaults to {@link DEFAULT_MAX_PARALLEL} (8); a value
   * below 1, or NaN, means the default; a fraction is rounded down; 1 makes the batch serial.
   */
  maxParallel?: number | undefined;
  /**
   * Runs the batch one call at a time in job order, ignoring resources, as a batch containing a
   * sequential tool does.
   */
  sequential?: boolean | undefined;
  /**
   * How many calls of a resource may run at once, by resource key: `{ sandbox: 4 }` lets four
   * calls naming `"sandbox"` (or `{ key: "sandbox", capacity: n }`) run side by side, still
   * starting in job order. It wins over the capacity a tool states (see `CountedResource`); a key
   * it does not name keeps the tools' (1 for a plain resource). Each value is an integer >= 1 or
   * Infinity: anything else fails the batch at subscription with a RangeError naming the key,
   * serial or not. A serial batch then ignores it, as it ignores every resource.
   */
  capacities?: Readonly<Record<string, number>> | undefined;
  /** Installed on every call's context, so a tool's `context.record(...)` reaches the application. */
  recorder?: Recorder | undefined;
  /**
   * The most records one call may write through the recorder (default 1,000): past it,
   * `context.record` rejects with a RecordError (`record: past the call's 1000 records
   * (maxRecords), not written`) and the recorder is not called. Below 1 or NaN means the default;
   * Infinity, no cap.
   */
  maxRecords?: number | undefined;
  /**
   * The most bytes of records one call may write (default 1,048,576, 1 MiB): each record counts
   * its namespace and its JSON text in UTF-8, and one that would pass the cap is refused with a
   * RecordError, not written. Below 1 or NaN means the default; Infinity, no cap.
   */
  maxRecordBytes?: number | undefined;
  /**
   * Answers the questions tools ask (`context.elicit`), installed on every call's context. Each
   * question appears in the events on its call, asked then answered ({@link ExecutionQuestionEvent}).
   * Without one, `elicit` resolves to `{ action: 'decline' }` at once and nothing is shown. A call
   * that ends, times out or is cancelled while its question is open gets `cancel` (an Observable
   * answer is unsubscribed); a failing elicitor answers `cancel`, never an error in the tool.
   */
  elicitor?: Elicitor | undefined;
  /**
   * How many questions one call may ask over its life (`context.elicit`, a question passed on from
   * an MCP server through `connectMcp` included): the question past it is never asked and its
   * `elicit` rejects with a RangeError `elicit: call "<id>" may ask at most <n> questions
   * (maxQuestions)`; the call goes on, or fails, as its tool decides. Defaults to
   * 16 (`DEFAULT_MAX_QUESTIONS`); a value below 1, or NaN, means the default; a fraction is
   * rounded down; Infinity means no cap. Counted per call, never across the batch.
   */
  maxQuestions?: number | undefined;
  /**
   * Asks the application (a person) whether a call may run, for each job as it arrives (every job of
   * `executeBatch` at subscription, in job order), all at once: a call waiting for its answer holds
   * no slot and blocks nobody but the later calls of its own resource, which keep their order
   * behind it. Approved, the call goes on as if it had just arrived: it takes a slot when one is
   * free and its resource turn when the earlier calls of its resource have ended. Refused, its
   * final is a NotApprovedError (see {@link Approval}) and its tool never runs; a throw, a
   * rejection or an Observable error refuses with that error's message, an Observable that
   * completes without an answer or any answer that is not an Approval refuses too. A Promise or
   * an Observable (its first value) is awaited; a plain answer is taken at once. Unsubscribing,
   * aborting the batch's signal or the job's own signal cancels a pending approval (an Observable
   * answer is unsubscribed; a Promise is left to settle, ignored). Asked before `onStart`, which
   * still runs when the call starts. The wait is not timed by `timeout` (a person may take longer
   * than a tool), only by {@link ExecuteOptions.approveTimeout}.
   */
  approve?:
    ((job: Job, index: number) => Approval | Promise<Approval> | Observable<Approval>) | undefined;
  /**
   * Runs when a call actually starts: after it has its slot and its turn, before its tool is
   * subscribed. The slot stays held while a returned Promise is pending. A throw or a rejection
   * completes the job with that error (a thrown value that is not an Error is wrapped in one) and
   * the tool never runs. A synchronous onStart starts the tool synchronously.
   */
  onStart?: ((job: Job, index: number) => void | Promise<void>) | undefined;
  /**
   * Per call, in milliseconds, counted from the moment the tool is subscribed (after onStart). A
   * call past it is cancelled (its signal aborts with the TimeoutError, its observable is
   * unsubscribed) and completes with a TimeoutError. Undefined, zero, negative, NaN or Infinity: no
   * timeout. A value above 2^31 - 1 (about 24.8 days, the longest a timer waits) is taken as that.
   */
  timeout?: number | undefined;
  /**
   * How long, in milliseconds, a call waits for its approval (`approve`'s Promise or Observable),
   * counted from the moment `approve` is asked: past it, the call is refused with a
   * NotApprovedError `call "<id>" was not approved: no answer within <ms> ms` (an Observable answer
   * is unsubscribed, a Promise left to settle, ignored). By the rule of `timeout`: undefined, zero,
   * negative, NaN or Infinity means no limit (the default: approvals wait for their person), and a
   * value above 2^31 - 1 is taken as that. `timeout` never counts this wait.
   */
  approveTimeout?: number | undefined;
  /**
   * Aborting it cancels the running calls and completes every unfinished job, running or waiting,
   * with a CancelledError final event, in job order; then the batch completes. A signal aborted
   * before the batch starts runs no tool at all.
   */
  signal?: AbortSignal | undefined;
  /**
   * Receives what a tool's teardown throws when the engine unsubscribes it (at its final, on a
   * timeout, a cancellation or an unsubscription), with the job and its index. The error changes
   * nothing else: the call's final stands (its result, or the error it was cut with), every other
   * call is still torn down, and nothing is thrown into a timer or the batch. rxjs's
   * UnsubscriptionError is unwrapped when it holds one error. Defaults to one `console.error` line;
   * a handler that throws is reported there too. It also receives, with the job asked about, what
   * the teardown of an Observable answer of `approve` or of the `elicitor` throws (unsubscribed
   * once it has answered, or when it is no longer awaited): the answer or the cancellation stands
   * the same way.
   */
  onTeardownError?: ((error: unknown, job: Job, index: number) => void) | undefined;
  /** Schedules the timeouts; defaults to rxjs's `asyncScheduler` (virtualised by TestScheduler). */
  scheduler?: SchedulerLike | undefined;
  /**
   * What the batch's OpenTelemetry spans record, or `false` for no spans and no metrics from it.
   * Spans are made only when the application has registered a tracer provider (docs/telemetry.md);
   * without one this option changes nothing.
   */
  telemetry?: TelemetryOptions | false | undefined;
}

/**
 * What a batch's `execute_tool` spans hold beyond the defaults (the tool's name, description and
 * call id, the outcome). Arguments and results may hold what must not leave the process, so they
 * are recorded only when asked for; an idempotency key never is.
 */
export interface TelemetryOptions {
  /** Records each call's arguments, as the model wrote them, as `gen_ai.tool.call.arguments`. */
  recordInputs?: boolean | undefined;
  /**
   * Records each successful call's output (text as is, content parts as JSON) as
   * `gen_ai.tool.call.result`.
   */
  recordOutputs?: boolean | undefined;
  /**
   * Told of each call's span when it starts, with its ids: for a front that links a call to its
   * trace. Not called when no tracer provider is registered; what it throws is ignored.
   */
  onSpan?:
    ((job: Job, index: number, span: { traceId: string; spanId: string }) => void) | undefined;
}
