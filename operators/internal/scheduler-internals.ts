/**
 * The core shared by `executeBatch` and `executeCalls`: per-call slots, resource chains, the slot
 * policy of rule 6, cancellation and completion.
 *
 * What it computes is a pipeline of stock operators, `groupBy` by resource, `mergeMap` over the
 * chains, `concatMap` within one, and a slot pool for the shared bound: marbles/pipeline-model.ts
 * is that pipeline, and marbles/engine-vs-model.test.ts requires both to give the same events
 * and tool subscriptions, frame for frame, on thousands of random batches.
 *
 * Why it is fused into this class rather than built from those operators: cost. The pipeline
 * model, run on trivial synchronous calls (maxParallel 8), took about 60 times this engine's CPU
 * time per call on a batch of 2,000 and about 125 times on 100,000: every call subscribes a chain
 * of operators, and RxJS keeps a batch's pending inner subscriptions in arrays it searches and
 * `splice`s, so a call's cost grows with the batch. Here each structure is O(1) amortised per
 * call:
 * - Jobs are admitted lazily through a cursor over the job array, so a 100k batch holds only what
 *   runs or waits. The not-yet-admitted jobs are the ready FIFO, and the cursor its head index.
 * - A job whose resource is busy when the cursor passes it waits in that resource's chain (a
 *   FIFO); when the resource frees, the next call of the chain goes into a min-heap by job index.
 * - A freed slot takes whichever head has the smaller index. Every call in the heap was admitted
 *   before the cursor's job, so that is the heap's top when there is one, else the cursor's job.
 * - A synchronous tool ends inside `subscribe`, inside `pump`: `draining` turns the nested `pump`
 *   into a no-op and the outer loop goes on, so 100k synchronous calls use constant stack. No call
 *   starts while an event is being emitted either: what a consumer's handler sets off is taken up
 *   once it returns, as the pipeline's `queueScheduler` steps do.
 *
 * One class of some 300 lines rather than several: every path (a call ending, a job arriving, an
 * abort) reads and writes the same counters, and the policy is easier to check in one place.
 *
 * @module
 */
import type { SchedulerLike, Subscriber, Unsubscribable } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { resourceOf, type ToolResult } from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import type { Recorder } from '../../lib/records.js';
import { CallRun, type Chain, type RunOwner } from './call-run.js';
import { parallelBound, timeoutBound } from './batch-mode.js';
import { reportTeardownError } from './teardown-errors.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../job.js';
import { Fifo, IndexHeap, RunningList } from './run-queues.js';

/**
 * Runs jobs for one subscriber. `executeBatch` hands it the whole array; `executeCalls` an empty
 * one it appends to as jobs arrive. Implements EventListenerObject so the abort listener is the
 * engine itself rather than a closure.
 */
export class Engine implements RunOwner, EventListenerObject, Unsubscribable {
  readonly recorder: Recorder | undefined;
  readonly onStart: ((job: Job, index: number) => void | Promise<void>) | undefined;
  readonly timeout: number;
  readonly scheduler: SchedulerLike;
  private readonly onTeardownError: ExecuteOptions['onTeardownError'];
  /** The source of `executeCalls`, unsubscribed when the engine closes. */
  upstream: Unsubscribable | undefined = undefined;

  private readonly limit: number;
  private readonly serial: boolean;
  private readonly signal: AbortSignal | undefined;
  private jobs: Job[];
  private cursor = 0;
  private base = 0; // the index of jobs[0]; moves when executeCalls compacts its array
  private sourceDone: boolean;
  private running = 0;
  private waiting = 0; // admitted, not started: in a chain or in the heap
  private barrier = false;
  private readonly heap = new IndexHeap<CallRun>();
  private readonly chains = new Map<string, Chain>();
  private readonly runningCalls = new RunningList<CallRun>();
  private draining = false; // in the pump loop, or emitting: a nested pump is deferred
  private deferred = false; // a pump was asked for while draining
  private closed = false;

  constructor(
    private readonly destination: Subscriber<ExecutionEvent>,
    options: ExecuteOptions,
    jobs: readonly Job[] | undefined,
    serial: boolean,
  ) {
    this.recorder = options.recorder;
    this.onStart = options.onStart;
    this.timeout = timeoutBound(options);
    this.onTeardownError = options.onTeardownError;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.limit = serial ? 1 : parallelBound(options);
    this.serial = serial;
    this.signal = options.signal;
    // The batch's array is read, never written: arrive() is for executeCalls' own array.
    this.jobs = jobs === undefined ? [] : (jobs as Job[]);
    this.sourceDone = jobs !== undefined;
  }

  /** Whether the engine has completed, failed, been aborted or been unsubscribed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts what can start; cancels everything at once when the signal is already aborted. */
  run(): void {
    const signal = this.signal;
    if (signal !== undefined) {
      if (signal.aborted) return this.abort();
      signal.addEventListener('abort', this);
    }
    this.pump();
  }

  /** executeCalls: a job arrived. */
  arrive(job: Job): void {
    if (this.closed) return;
    const jobs = this.jobs;
    if (this.cursor === jobs.length && this.cursor > 0) {
      this.base += this.cursor;
      this.cursor = 0;
      jobs.length = 0;
    } else if (this.cursor >= 1024 && this.cursor * 2 >= jobs.length) {
      this.jobs = jobs.slice(this.cursor);
      this.base += this.cursor;
      this.cursor = 0;
    }
    this.jobs.push(job);
    this.pump();
  }

  /** executeCalls: the source completed; the engine completes after the last final. */
  sourceComplete(): void {
    this.sourceDone = true;
    this.pump();
  }

  /** executeCalls: the source failed; running calls are cancelled and the error passed on. */
  sourceError(err: unknown): void {
    if (this.closed) return;
    this.dispose();
    this.destination.error(err);
  }

  handleEvent(): void {
    this.abort();
  }

  progress(run: CallRun, result: ToolResult): void {
    if (!this.closed)
      this.emit({ index: run.index, callId: run.job.call.id, final: false, result });
  }

  /**
   * Emits one event. No call starts while a consumer's handler runs: a job it pushes (or a slot
   * its event frees) is taken up once the handler has returned, so events never nest.
   */
  private emit(event: ExecutionEvent): void {
    if (this.draining) return this.destination.next(event);
    this.draining = true;
    this.destination.next(event);
    this.draining = false;
    if (this.deferred) this.pump();
  }

  end(run: CallRun, result: ToolResult | undefined, error: Error | undefined): void {
    this.runningCalls.remove(run);
    this.running--;
    if (run.barrier) this.barrier = false;
    const chain = run.chain;
    if (chain !== undefined) {
      const next = chain.queue.shift();
      if (next === undefined) chain.busy = false;
      else this.heap.push(next);
    }
    if (this.closed) return;
    const callId = run.job.call.id;
    this.emit(
      error === undefined
        ? { index: run.index, callId, final: true, result: result as ToolResult }
        : { index: run.index, callId, final: true, error },
    );
    this.pump();
  }

  teardownError(run: CallRun, thrown: unknown): void {
    reportTeardownError(this.onTeardownError, thrown, run.job, run.index);
  }

  /** The subscriber's teardown: {@link Engine.dispose}. */
  unsubscribe(): void {
    this.dispose();
  }

  /** Unsubscription, completion or error: cancels what runs, starts nothing more. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener('abort', this);
    this.upstream?.unsubscribe();
    for (const run of this.runningCalls.takeAll()) run.cancel(new CancelledError());
  }

  /**
   * The signal aborted: every unfinished job completes with a CancelledError, in job order (the
   * running and admitted ones first, since they all precede the cursor), then the batch completes.
   */
  private abort(): void {
    if (this.closed) return;
    const error = new CancelledError();
    const admitted = this.runningCalls.takeAll();
    this.heap.drainInto(admitted);
    for (const chain of this.chains.values()) chain.queue.drainInto(admitted);
    this.dispose();
    for (const run of admitted) run.cancel(error);
    admitted.sort((a, b) => a.index - b.index);
    const destination = this.destination;
    for (const run of admitted) {
      destination.next({ index: run.index, callId: run.job.call.id, final: true, error });
    }
    const jobs = this.jobs;
    for (let i = this.cursor; i < jobs.length; i++) {
      destination.next({ index: this.base + i, callId: jobs[i].call.id, final: true, error });
    }
    destination.complete();
  }

  /** Starts calls while slots are free; completes once nothing is left. */
  private pump(): void {
    if (this.closed) return;
    if (this.draining) {
      this.deferred = true; // the loop or the emit in progress pumps again
      return;
    }
    this.draining = true;
    this.deferred = false;
    while (!this.closed && this.running < this.limit) {
      const run = this.take();
      if (run === undefined) break;
      this.running++;
      this.runningCalls.add(run);
      run.start();
    }
    this.draining = false;
    if (
      !this.closed &&
      this.sourceDone &&
      this.running === 0 &&
      this.waiting === 0 &&
      this.cursor === this.jobs.length
    ) {
      this.dispose();
      this.destination.complete();
    }
  }

  /** The earliest job whose turn has come, admitting jobs from the cursor as needed (rule 6). */
  private take(): CallRun | undefined {
    if (this.barrier) return undefined;
    const ready = this.heap.pop();
    if (ready !== undefined) {
      this.waiting--;
      return ready;
    }
    const jobs = this.jobs;
    while (this.cursor < jobs.length) {
      const job = jobs[this.cursor];
      const index = this.base + this.cursor;
      if (this.serial) {
        this.cursor++;
        return new CallRun(this, job, index, undefined, false);
      }
      const tool = job.tool;
      if (tool === undefined || tool === null) {
        // No tool: its call fails at start with a NoToolError, on a chain of its own.
        this.cursor++;
        return new CallRun(this, job, index, undefined, false);
      }
      if (tool.sequential === true) {
        // A barrier waits for every earlier call to end, and holds back every later one.
        if (this.running > 0 || this.waiting > 0) return undefined;
        this.cursor++;
        this.barrier = true;
        return new CallRun(this, job, index, undefined, true);
      }
      this.cursor++;
      const resource = resourceOf(tool);
      if (resource === '') {
        return new CallRun(this, job, index, undefined, false);
      }
      let chain = this.chains.get(resource);
      if (chain === undefined) {
        chain = { busy: false, queue: new Fifo<CallRun>() };
        this.chains.set(resource, chain);
      }
      const run = new CallRun(this, job, index, chain, false);
      if (!chain.busy) {
        chain.busy = true;
        return run;
      }
      chain.queue.push(run);
      this.waiting++;
    }
    return undefined;
  }
}
