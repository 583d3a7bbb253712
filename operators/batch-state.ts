/**
 * A batch as a view shows it: one state per call (name, arguments, phase, progress, elapsed time,
 * output or error), folded from the engine's events. The terminal, the web front and an Angular or
 * React component all draw from it.
 *
 * @module
 */
import {
  asyncScheduler,
  Observable,
  shareReplay,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
// Straight to the files rather than the barrels: a web page bundles this operator, and the barrels
// would pull the validators (zod, ajv) into it.
import type { ElicitRequest, ProgressInfo, ToolResult } from '../lib/contract.js';
import { jobResource } from './internal/batch-mode.js';
import type { ToolOutput } from '../lib/open-responses.js';
import { resourceChains } from './chains.js';
import type {
  ExecutionErrorEvent,
  ExecutionEvent,
  ExecutionResultEvent,
  Job,
  SettledResult,
} from './job.js';
import { settledOf } from './settled-of.js';

/**
 * Where a call is: not started yet, waiting for a person's approval (`ExecuteOptions.approve`),
 * running, asking a question (running, its tool waits for a person's answer), or ended one of
 * three ways.
 */
export type CallPhase =
  'waiting' | 'approving' | 'running' | 'asking' | 'done' | 'failed' | 'cancelled';

/**
 * One call of a batch as a view shows it. A state never changes: a change to a call is a new
 * object, and a call that did not change keeps its object, so a view can compare by reference.
 */
export interface CallState {
  /** The job's position in the batch. */
  readonly index: number;
  /** The call's id, as the function_call_output echoes it. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The call's arguments, as the model sent them (JSON text). */
  readonly args: string;
  /** The resource the call waits on, `""` when none. */
  readonly resource: string;
  /**
   * The job it waits for in its resource chain (see {@link chains}), or -1: the one before it, or
   * for a counted resource of capacity n the one n places before it (the first n wait for none).
   */
  readonly after: number;
  /** Where the call is. */
  readonly phase: CallPhase;
  /** When it started, in ms since the batch began; -1 until then (and for a call that never ran). */
  readonly startedAt: number;
  /** When it ended, in ms since the batch began; -1 until then. */
  readonly endedAt: number;
  /**
   * How long it ran, in ms: from its start to its end once it ended, to its latest event while it
   * runs; 0 for a call that has not started.
   */
  readonly elapsed: number;
  /** The question the call's tool asks and waits on (phase `asking`); cleared once answered. */
  readonly question?: ElicitRequest;
  /** The last progress numbers, when the tool reported any. */
  readonly progress?: ProgressInfo;
  /**
   * One line for the call: its last progress text while it runs, then its output's text or its
   * error's message; whitespace folded, at most 200 characters.
   */
  readonly message: string;
  /** The final output of a call that succeeded. */
  readonly output?: ToolOutput;
  /** Why the call failed (a `CancelledError` when it was cancelled). */
  readonly error?: Error;
  /** How the call settled, once it has: what {@link toOutputItems} takes, in job order. */
  readonly settled?: SettledResult;
  /**
   * Set, and true, once the call has detached (its `detached` event): it runs on in the
   * background, phase `running`, and the model has been answered for it; kept once it ends.
   */
  readonly detached?: true;
}

/**
 * A call started: it had its slot and its turn, and its tool is being subscribed. The engine tells
 * this through `ExecuteOptions.onStart`; {@link executeBatchWithStarts} puts it in the stream.
 */
export interface CallStart {
  /** The job's position in the batch. */
  readonly index: number;
  /** The job's call id. */
  readonly callId: string;
  /** Always true: what tells a start from an ExecutionEvent. */
  readonly started: true;
}

/**
 * A call's approval (`ExecuteOptions.approve`): asked and pending (`approving: true`), or given
 * (`approving: false`; the call then waits for its slot and turn). A refusal is the call's final
 * event instead. {@link executeBatchWithStarts} puts these in the stream.
 */
export interface CallApproval {
  /** The job's position in the batch. */
  readonly index: number;
  /** The job's call id. */
  readonly callId: string;
  /** True while the answer is pending; false once the call is approved. */
  readonly approving: boolean;
}

/**
 * What {@link batchState} folds: the engine's events, and optionally when each call started and
 * when it waited for its approval.
 */
export type BatchStateInput = ExecutionEvent | CallStart | CallApproval;

/** How the batch runs (for the resource chains) and which clock times it. */
export interface BatchStateOptions {
  /** The batch runs one call at a time (as `ExecuteOptions.sequential`): one chain, no resources. */
  sequential?: boolean | undefined;
  /** The batch's bound (as `ExecuteOptions.maxParallel`): 1 makes it serial. */
  maxParallel?: number | undefined;
  /** The batch's capacities by resource (as `ExecuteOptions.capacities`), for `after`. */
  capacities?: Readonly<Record<string, number>> | undefined;
  /** Its `now()` times the calls; defaults to rxjs's `asyncScheduler` (virtual under TestScheduler). */
  scheduler?: SchedulerLike | undefined;
}

/** An output as text: a string as it is, parts one a line, non-text parts as `[image]`, `[file]`. */
export function outputText(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  return output
    .map((part) =>
      part.type === 'input_text' ? part.text : `[${part.type.replace('input_', '')}]`,
    )
    .join('\n');
}

/** An output on one line: whitespace folded, cut at 200 characters, non-text parts as `[image]`. */
export function outputPreview(output: ToolOutput | undefined): string {
  if (output === undefined) return '';
  const folded = outputText(output).replace(/\s+/g, ' ').trim();
  return folded.length > 200 ? `${folded.slice(0, 199)}…` : folded;
}

/** The calls of `jobs` before anything ran: all waiting, with their resource chains. */
export function initialCallStates(
  jobs: readonly Job[],
  options: BatchStateOptions = {},
): readonly CallState[] {
  const after = new Array<number>(jobs.length).fill(-1);
  const runAs = {
    sequential: options.sequential === true,
    maxParallel: options.maxParallel,
    capacities: options.capacities,
  };
  for (const { indices, capacity } of resourceChains(jobs, runAs))
    for (let i = capacity; i < indices.length; i++) after[indices[i]!] = indices[i - capacity]!;
  return jobs.map((job, index) =>
    withChanges(
      {
        index,
        callId: job.call.id,
        name: job.tool.name,
        args: job.call.args,
        resource: jobResource(job),
        after: after[index]!,
        phase: 'waiting',
        startedAt: -1,
        endedAt: -1,
        elapsed: 0,
        message: '',
      },
      {},
    ),
  );
}

/** A call's fields that a change sets; an optional field set to undefined is removed. */
type CallChanges = { -readonly [K in keyof CallState]?: CallState[K] | undefined };

/**
 * `call` with `changes`, built field by field in one order, the optional fields after the others
 * and only when set. Why not `{ ...call, ...changes }`: V8 gives an object made by spread that
 * then gains a field (`progress`, `output`) a hidden class of its own, so that a batch of n calls
 * held some n classes (hundreds of bytes a call, and slower reads of every field); built here,
 * the states share a handful.
 */
function withChanges(call: CallState, changes: CallChanges): CallState {
  const next: { -readonly [K in keyof CallState]: CallState[K] } = {
    index: call.index,
    callId: call.callId,
    name: call.name,
    args: call.args,
    resource: call.resource,
    after: call.after,
    phase: changes.phase ?? call.phase,
    startedAt: changes.startedAt ?? call.startedAt,
    endedAt: changes.endedAt ?? call.endedAt,
    elapsed: changes.elapsed ?? call.elapsed,
    message: changes.message ?? call.message,
  };
  const question = 'question' in changes ? changes.question : call.question;
  if (question !== undefined) next.question = question;
  const progress = 'progress' in changes ? changes.progress : call.progress;
  if (progress !== undefined) next.progress = progress;
  const output = 'output' in changes ? changes.output : call.output;
  if (output !== undefined) next.output = output;
  const error = 'error' in changes ? changes.error : call.error;
  if (error !== undefined) next.error = error;
  const settled = 'settled' in changes ? changes.settled : call.settled;
  if (settled !== undefined) next.settled = settled;
  const detached = 'detached' in changes ? changes.detached : call.detached;
  if (detached !== undefined) next.detached = detached;
  return next;
}

function isProgressInfo(details: unknown): details is ProgressInfo {
  return (
    typeof details === 'object' &&
    details !== null &&
    typeof (details as ProgressInfo).progress === 'number'
  );
}

function isCancelled(error: Error): boolean {
  return (error as { code?: unknown }).code === 'cancelled';
}

/** The call after `input` at `at` ms; the same object when nothing changed. */
function nextCall(call: CallState, input: BatchStateInput, at: number): CallState {
  if ('started' in input) {
    if (call.phase !== 'waiting' && call.phase !== 'approving') return call;
    return withChanges(call, { phase: 'running', startedAt: at });
  }
  if ('approving' in input) {
    if (input.approving)
      return call.phase === 'waiting' ? withChanges(call, { phase: 'approving' }) : call;
    return call.phase === 'approving' ? withChanges(call, { phase: 'waiting' }) : call;
  }
  if (call.endedAt >= 0) return call; // nothing of a call comes after its final event
  const result: ToolResult | undefined = 'result' in input ? input.result : undefined;
  const error: Error | undefined = 'error' in input ? input.error : undefined;
  // Without a start in the stream, a call counts as started at its first progress.
  const startedAt = call.startedAt >= 0 || input.final ? call.startedAt : at;
  const elapsed = startedAt >= 0 ? at - startedAt : 0;
  if (input.question !== undefined) {
    // Asked: the call shows the question until an answer comes.
    if (input.answer === undefined)
      return withChanges(call, { phase: 'asking', startedAt, elapsed, question: input.question });
    if (call.question === undefined) return call;
    return withChanges(call, { phase: 'running', startedAt, elapsed, question: undefined });
  }
  if (!input.final) {
    if (result === undefined) return call;
    const phase = call.question === undefined ? 'running' : 'asking';
    if (input.detached === true)
      return withChanges(call, { phase, startedAt, elapsed, detached: true });
    const line = outputPreview(result.output);
    return withChanges(call, {
      phase,
      startedAt,
      elapsed,
      message: line === '' ? call.message : line,
      progress: isProgressInfo(result.details) ? result.details : call.progress,
    });
  }
  const ended = { startedAt, endedAt: at, elapsed, question: undefined };
  if (error !== undefined)
    return withChanges(call, {
      ...ended,
      phase: isCancelled(error) ? 'cancelled' : 'failed',
      message: error.message.replace(/\s+/g, ' ').trim(),
      error,
      settled: settledOf(input as ExecutionErrorEvent),
    });
  const done = result ?? { output: '' };
  return withChanges(call, {
    ...ended,
    phase: 'done',
    message: outputPreview(done.output),
    output: done.output,
    settled: result === undefined ? { result: done } : settledOf(input as ExecutionResultEvent),
  });
}

/**
 * Folds one input, at `at` ms since the batch began, into the calls: a new array with a new state
 * for the call that changed, or `calls` itself when nothing did (an index out of range, an event
 * after a call's final, a kind of event a view has nothing to show for).
 */
export function reduceCallStates(
  calls: readonly CallState[],
  input: BatchStateInput,
  at: number,
): readonly CallState[] {
  const call = calls[input.index];
  if (call === undefined) return calls;
  const next = nextCall(call, input, at);
  if (next === call) return calls;
  const copy = calls.slice();
  copy[input.index] = next;
  return copy;
}

/**
 * Folds a batch's events into the state of each of its calls, for a view to draw.
 *
 * ```
 *   events      --s--p---f--|        s: a CallStart of job 0, p: its progress, f: its final
 *
 *               batchState(jobs)
 *
 *   states      w-r--R---d--|        w: every call waiting (on subscription), r: job 0 running,
 *                                    R: with p's progress, elapsed 3, d: done, elapsed 7
 *   late view   -------R-d--|        subscribed at 7: the latest state at once, the same run
 * ```
 *
 * Emits the calls before anything ran as soon as it is subscribed, then a new array after each
 * input that changed a call, and completes or errors with the source. Calls stay in job order,
 * and a call that did not change keeps its object (signals and `@for ... track` redraw only what
 * moved). Times are ms since the first subscription, by `options.scheduler`'s `now()`.
 *
 * The states are shared, with `shareReplay({ bufferSize: 1, refCount: true })`'s semantics, so
 * that a view that subscribes late is shown what waits for a person. The first subscription
 * subscribes the source (runs the batch); a view that subscribes while it runs joins that fold and
 * gets its latest state at once: every open question (`asking`, with `question`) and every
 * pending approval (`approving`), then each change. When the last subscriber unsubscribes before
 * the source ends, the source is unsubscribed (the batch is cancelled) and the next subscription
 * runs it anew. Once the source has completed, a late subscriber gets the final states and
 * completion, and nothing runs again: to run a batch again, pipe a new one (`defer`). Share the
 * states, not the events: views that each fold an already shared event stream miss what went by
 * before they subscribed.
 *
 * The engine's events alone say when a call progresses and ends; a call counts as running from
 * its first progress. Feed {@link CallStart}s too (with {@link executeBatchWithStarts}) to see a
 * call leave `waiting` the moment it starts and to time it from there; with `approve`, those
 * starts come with {@link CallApproval}s, and a call is `approving` while its answer is pending,
 * then `waiting` again once approved (a refusal ends it `failed`). A question its tool asks
 * (with `ExecuteOptions.elicitor`) makes the call `asking`, with the question in `question`, until
 * the answer comes; then it is `running` again. A detached call (`Job.detach`) is `running`
 * with `detached: true` from its detached event on, its message left as it was. A final event ends the call:
 * `done` with its output, `cancelled` for a `CancelledError`, `failed` for any other error.
 *
 * ## Example
 *
 * ```ts
 * const calls = toSignal(executeBatchWithStarts(jobs, { signal }).pipe(batchState(jobs)), {
 *   initialValue: [],
 * });
 * ```
 *
 * @param jobs The batch's jobs, as given to `executeBatch`: names, arguments and resource chains.
 * @param options The batch's `sequential`, `maxParallel` and `capacities` (for the chains) and the
 *   clock.
 * @return An operator from the batch's events to the state of every call, shared by its views.
 */
export function batchState(
  jobs: readonly Job[],
  options: BatchStateOptions = {},
): OperatorFunction<BatchStateInput, readonly CallState[]> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<readonly CallState[]>((subscriber) => {
      const began = scheduler.now();
      let calls = initialCallStates(jobs, options);
      subscriber.next(calls);
      return source.subscribe({
        next: (input) => {
          const next = reduceCallStates(calls, input, scheduler.now() - began);
          if (next === calls) return;
          calls = next;
          subscriber.next(calls);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    }).pipe(shareReplay({ bufferSize: 1, refCount: true }));
}
