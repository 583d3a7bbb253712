/**
 * A batch of tool calls as an Angular resource (`rxResource`): its value the calls' states as they
 * run, with what a page steers them by (cancel a call or all, approve, answer a question) and the
 * function_call_output items once every call ended.
 *
 * @module
 */
import {
  computed,
  signal,
  type Injector,
  type ResourceRef,
  type Signal,
  type WritableSignal,
} from '@angular/core';
import { rxResource } from '@angular/core/rxjs-interop';
import { defer, Observable } from 'rxjs';
import type { ElicitResult, Elicitor } from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import type { FunctionCallOutputItem, OutputItem } from '../../lib/open-responses.js';
import type { ToolSet } from '../../lib/tool-set.js';
import type { Approval, ExecuteOptions, Job } from '../../operators/job.js';
import { batchState, type CallState } from '../../operators/batch-state.js';
import { executeBatchWithStarts } from '../../operators/execute-batch-with-starts.js';
import { jobsFromItems } from '../../operators/jobs-from-items.js';
import { toOutputItems } from '../../operators/to-output-items.js';
import { tickElapsed, type TickElapsedOptions } from './tick-elapsed.js';

/** What a batch runs: a model turn's items over a ToolSet, or jobs made already. */
export type ToolBatchParams =
  | {
      /** The model's output items: their function calls run, the other items are passed over. */
      readonly items: readonly OutputItem[];
      /** The tools the calls name. */
      readonly tools: ToolSet;
    }
  | {
      /** The jobs to run, made already (`jobsFromItems`, `jobsFromToolCalls`, ...). */
      readonly jobs: readonly Job[];
    };

/** Options of {@link toolBatchResource}. */
export interface ToolBatchResourceOptions {
  /**
   * The batch to run, read in a reactive context: each new value (a new object) cancels the calls
   * still running for the previous one and runs it; undefined runs none (the resource is idle and
   * its value `[]`).
   */
  params: () => ToolBatchParams | undefined;
  /**
   * Which calls wait for a person before they take a slot: those for which it returns true wait
   * (phase `approving`) until {@link ToolBatchResource.decide}. Default: none.
   */
  needsApproval?: ((job: Job, index: number) => boolean) | undefined;
  /**
   * Who answers a tool's question. Default: the page, through
   * {@link ToolBatchResource.answer}; the question shows on its call (`question`, phase
   * `asking`) until then.
   */
  elicitor?: Elicitor | undefined;
  /** The engine's other options for each batch (its bound, timeouts, ...). */
  execute?: Omit<ExecuteOptions, 'signal' | 'approve' | 'elicitor'> | undefined;
  /**
   * The clock of running calls: every `period` ms (default 100) the value is the same states with
   * each running call's `elapsed` counted to that instant, read from `scheduler` (default rxjs's
   * `asyncScheduler`, virtual under TestScheduler). See {@link tickElapsed}.
   */
  clock?: TickElapsedOptions | undefined;
  /** Where the resource lives, when it is made outside an injection context. */
  injector?: Injector | undefined;
}

/**
 * A batch as a resource: `value()` holds each call's state (see `batchState`), a new array on each
 * change in which a call that did not change keeps its object; a running call's `elapsed` ticks
 * (see {@link ToolBatchResourceOptions.clock}), so a time column moves while it runs; `error()` holds why the batch could
 * not run (its params were not a batch). The rest steers the calls of the batch running now.
 *
 * `value()` is always the latest state, so a view made after a question or an approval was asked
 * (a component created later that is given the resource) shows it, and its `answer` or `decide`
 * reaches the call that waits.
 */
export interface ToolBatchResource extends ResourceRef<readonly CallState[]> {
  /** Whether a call of the batch has not ended yet. */
  readonly running: Signal<boolean>;
  /**
   * The function_call_output items of the batch, in the model's order, once every call ended
   * (cancelled ones included); undefined until then.
   */
  readonly outputs: Signal<FunctionCallOutputItem[] | undefined>;
  /** Cancels the calls not ended yet: each ends with a `CancelledError`, and `outputs` follows. */
  cancel(): void;
  /** Cancels call `index` alone: it ends with a `CancelledError`, the others go on. */
  cancelCall(index: number): void;
  /**
   * Approves (true) or refuses (false) call `index`, waiting for it (see `needsApproval`); an
   * {@link Approval} object carries the person's note for the model, or approves with arguments
   * they corrected.
   */
  decide(index: number, approval: Approval): void;
  /** Gives call `index`'s tool the answer to the question it waits on. */
  answer(index: number, result: ElicitResult): void;
}

/** A person's answer the engine waits for, by job index. */
type Waiting<T> = ReadonlyMap<number, (value: T) => void>;

/** An answer to wait for: `waiting` holds its resolver until it is given or no longer wanted. */
function waitFor<T>(waiting: WritableSignal<Waiting<T>>, index: number): Observable<T> {
  return new Observable<T>((subscriber) => {
    const give = (value: T): void => {
      subscriber.next(value);
      subscriber.complete();
    };
    waiting.update((map) => new Map(map).set(index, give));
    return () =>
      waiting.update((map) => {
        const rest = new Map(map);
        rest.delete(index);
        return rest;
      });
  });
}

/**
 * Runs the batch `params()` names, as an `rxResource`: the engine's events folded into each call's
 * state with `batchState`. A new batch cancels the calls of the previous one (the resource
 * unsubscribes its stream), and so does the end of the component or injector it lives in.
 *
 * ```ts
 * readonly batch = toolBatchResource({
 *   params: () => ({ items: this.turn(), tools: this.tools() }),
 *   needsApproval: (job) => job.tool.annotations?.readOnlyHint !== true,
 * });
 * // @for (call of batch.value(); track call.callId) { ... (click)="batch.cancelCall(call.index)" }
 * // effect(() => { const items = batch.outputs(); if (items) sendToModel(items); });
 * ```
 *
 * Must be called in an injection context (a field of a component, say), or given `injector`.
 */
export function toolBatchResource(options: ToolBatchResourceOptions): ToolBatchResource {
  const approvals = signal<Waiting<Approval>>(new Map());
  const questions = signal<Waiting<ElicitResult>>(new Map());
  /** The batch running now: its jobs, and how to cancel it or one call of it. */
  const current = signal<
    { jobs: readonly Job[]; batch: AbortController; calls: AbortController[] } | undefined
  >(undefined);

  const resource = rxResource<readonly CallState[], ToolBatchParams | undefined>({
    params: () => options.params(),
    defaultValue: [],
    ...(options.injector === undefined ? {} : { injector: options.injector }),
    stream: ({ params }) =>
      defer(() => {
        const made = 'jobs' in params ? params.jobs : jobsFromItems(params.items, params.tools);
        const controllers = made.map(() => new AbortController());
        const jobs = made.map((job, i): Job => ({
          ...job,
          signal:
            job.signal === undefined
              ? controllers[i]!.signal
              : AbortSignal.any([job.signal, controllers[i]!.signal]),
        }));
        const batch = new AbortController();
        current.set({ jobs, batch, calls: controllers });
        const needsApproval = options.needsApproval;
        const elicitor: Elicitor =
          options.elicitor ??
          ((_question, call) =>
            waitFor(
              questions,
              jobs.findIndex((job) => job.call.id === call.id),
            ));
        return executeBatchWithStarts(jobs, {
          ...options.execute,
          signal: batch.signal,
          elicitor,
          ...(needsApproval === undefined
            ? {}
            : {
                approve: (job: Job, index: number) =>
                  !needsApproval(job, index) || waitFor(approvals, index),
              }),
        }).pipe(
          batchState(jobs, { scheduler: options.clock?.scheduler }),
          tickElapsed(options.clock),
        );
      }),
  });

  // A resource in error has no value to read (its value() throws): none of its calls run.
  const calls = computed(() => (resource.hasValue() ? resource.value() : []));
  const outputs = computed(() => {
    const jobs = current()?.jobs;
    const states = calls();
    if (resource.status() === 'idle' || jobs === undefined || states.length !== jobs.length)
      return undefined;
    if (!states.every((call) => call.settled !== undefined)) return undefined;
    return toOutputItems(
      jobs,
      states.map((call) => call.settled!),
    );
  });

  return Object.assign(resource, {
    running: computed(() => calls().some((call) => call.settled === undefined)),
    outputs,
    cancel: () => current()?.batch.abort(),
    cancelCall: (index: number) =>
      current()?.calls[index]?.abort(new CancelledError('call cancelled by the user')),
    decide: (index: number, approval: Approval) => approvals().get(index)?.(approval),
    answer: (index: number, result: ElicitResult) => questions().get(index)?.(result),
  });
}
