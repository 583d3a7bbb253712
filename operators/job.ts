/**
 * The shapes the engine reads and writes: a job, the options of a batch, and the events it emits.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import type { Tool, ToolCall, ToolResult } from '../lib/contract.js';
import type { Recorder } from '../lib/records.js';

/** The bound on running calls when the options set none: {@link ExecuteOptions.maxParallel}. */
export const DEFAULT_MAX_PARALLEL = 8;

/** One call of a batch: the tool to run and the call to run it with. */
export interface Job {
  /** The tool to run. */
  readonly tool: Tool;
  /** The call to run it with: the function_call's id and raw arguments. */
  readonly call: ToolCall;
}

/**
 * One step of a batch: a {@link ExecutionProgressEvent} of job `index` (`final` false), or its one final
 * event, exactly once per job: a {@link ExecutionResultEvent} when the call succeeded, an
 * {@link ExecutionErrorEvent} when it failed. Completions arrive in completion order, not job order.
 *
 * A discriminated union: after `if (event.final && event.error === undefined)` `event.result` is a
 * ToolResult, after `if (!event.final)` too; an event with both a result and an error, a final
 * event with neither, or a progress event with an error does not type-check.
 */
export type ExecutionEvent = ExecutionProgressEvent | ExecutionResultEvent | ExecutionErrorEvent;

/** What every {@link ExecutionEvent} carries. */
interface EventOfJob {
  /** The job's position in the batch (`executeBatch`) or in arrival order (`executeCalls`). */
  readonly index: number;
  /** The job's call id, as the function_call_output must echo it. */
  readonly callId: string;
}

/** A progress update of a running job. */
export interface ExecutionProgressEvent extends EventOfJob {
  /** Not the job's final event. */
  readonly final: false;
  /** The progress update. */
  readonly result: ToolResult;
  /** Never set on progress. */
  readonly error?: undefined;
}

/** The final event of a job that succeeded. */
export interface ExecutionResultEvent extends EventOfJob {
  /** The job's one final event. */
  readonly final: true;
  /** The call's final result. */
  readonly result: ToolResult;
  /** Never set on a success. */
  readonly error?: undefined;
}

/** The final event of a job that failed. */
export interface ExecutionErrorEvent extends EventOfJob {
  /** The job's one final event. */
  readonly final: true;
  /** Why the call failed. */
  readonly error: Error;
  /** Never set on a failure. */
  readonly result?: undefined;
}

/** How a batch of jobs settled, in job order: each job's result or its error. */
export type SettledResult =
  | {
      /** The final result of a call that succeeded. */
      readonly result: ToolResult;
    }
  | {
      /** Why the call failed. */
      readonly error: Error;
    };

/** How a batch runs. Every field is optional. */
export interface ExecuteOptions {
  /**
   * At most this many calls run at once. Defaults to {@link DEFAULT_MAX_PARALLEL} (8); a value
   * below 1, or NaN, means the default; a fraction is rounded down; 1 makes the batch serial.
   */
  maxParallel?: number;
  /**
   * Runs the batch one call at a time in job order, ignoring resources, as a batch containing a
   * sequential tool does.
   */
  sequential?: boolean;
  /** Installed on every call's context, so a tool's `context.record(...)` reaches the application. */
  recorder?: Recorder;
  /**
   * Runs when a call actually starts: after it has its slot and its turn, before its tool is
   * subscribed. The slot stays held while a returned Promise is pending. A throw or a rejection
   * completes the job with that error (a thrown value that is not an Error is wrapped in one) and
   * the tool never runs. A synchronous onStart starts the tool synchronously.
   */
  onStart?: (job: Job, index: number) => void | Promise<void>;
  /**
   * Per call, in milliseconds, counted from the moment the tool is subscribed (after onStart). A
   * call past it is cancelled (its signal aborts with the TimeoutError, its observable is
   * unsubscribed) and completes with a TimeoutError. Undefined, zero, negative, NaN or Infinity: no
   * timeout. A value above 2^31 - 1 (about 24.8 days, the longest a timer waits) is taken as that.
   */
  timeout?: number;
  /**
   * Aborting it cancels the running calls and completes every unfinished job, running or waiting,
   * with a CancelledError final event, in job order; then the batch completes. A signal aborted
   * before the batch starts runs no tool at all.
   */
  signal?: AbortSignal;
  /**
   * Receives what a tool's teardown throws when the engine unsubscribes it (at its final, on a
   * timeout, a cancellation or an unsubscription), with the job and its index. The error changes
   * nothing else: the call's final stands (its result, or the error it was cut with), every other
   * call is still torn down, and nothing is thrown into a timer or the batch. rxjs's
   * UnsubscriptionError is unwrapped when it holds one error. Defaults to one `console.error` line;
   * a handler that throws is reported there too.
   */
  onTeardownError?: (error: unknown, job: Job, index: number) => void;
  /** Schedules the timeouts; defaults to rxjs's `asyncScheduler` (virtualised by TestScheduler). */
  scheduler?: SchedulerLike;
}
