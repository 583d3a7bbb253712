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
 * - A job's own signal and its pending approval live in maps made by the first job that has one
 *   (job-watch.ts, job-approval.ts): a batch without them pays a property read per job and an
 *   `undefined` check per call. A job they end before it starts stays where it waits, marked
 *   ended, and is passed by when its turn comes (the cursor keeps a set of those past it); a call
 *   parked for its approval holds its chain's turn and no slot, and enters the heap once approved.
 *
 * One class of some 500 lines rather than several: every path (a call ending, a job arriving, an
 * abort, an approval) reads and writes the same counters, and the policy is easier to check in one
 * place.
 *
 * @module
 */
import type { SchedulerLike, Subscriber, Unsubscribable } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import {
  resourceOf,
  type ElicitRequest,
  type ElicitResult,
  type Elicitor,
  type ToolResult,
} from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import type { Recorder } from '../../lib/records.js';
import { asError, CallRun, type Chain, type RunOwner } from './call-run.js';
import { approveTimeoutBound, parallelBound, timeoutBound } from './batch-mode.js';
import { reportTeardownError } from './teardown-errors.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../job.js';
import { Fifo, IndexHeap, RunningList } from './run-queues.js';
import { abortError, JobWatch, type WatchOwner } from './job-watch.js';
import {
  askApproval,
  PendingApproval,
  type ApprovalOwner,
  type ApprovalHost,
} from './job-approval.js';
import type { NotApprovedError } from '../../lib/errors.js';

/**
 * Runs jobs for one subscriber. `executeBatch` hands it the whole array; `executeCalls` an empty
 * one it appends to as jobs arrive. Implements EventListenerObject so the abort listener is the
 * engine itself rather than a closure.
 */
export class Engine
  implements RunOwner, WatchOwner, ApprovalOwner, ApprovalHost, EventListenerObject, Unsubscribable
{
  readonly recorder: Recorder | undefined;
  readonly maxRecords: number | undefined;
  readonly maxRecordBytes: number | undefined;
  readonly elicitor: Elicitor | undefined;
  readonly maxQuestions: number | undefined;
  readonly onStart: ((job: Job, index: number) => void | Promise<void>) | undefined;
  readonly timeout: number;
  readonly approveTimeout: number;
  readonly scheduler: SchedulerLike;
  private readonly onTeardownError: ExecuteOptions['onTeardownError'];
  private readonly approve: ExecuteOptions['approve'];
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
  /** The watches of unfinished jobs that carry a signal, by index; made by the first one. */
  private watches: Map<number, JobWatch> | undefined = undefined;
  /** Jobs past the cursor that ended before their turn: the cursor passes them by. */
  private skipped: Set<number> | undefined = undefined;
  /** The approvals still to come, by job index; made by the first one. */
  private approvals: Map<number, PendingApproval> | undefined = undefined;

  constructor(
    private readonly destination: Subscriber<ExecutionEvent>,
    options: ExecuteOptions,
    jobs: readonly Job[] | undefined,
    serial: boolean,
  ) {
    this.recorder = options.recorder;
    this.maxRecords = options.maxRecords;
    this.maxRecordBytes = options.maxRecordBytes;
    this.elicitor = options.elicitor;
    this.maxQuestions = options.maxQuestions;
    this.onStart = options.onStart;
    this.timeout = timeoutBound(options);
    this.approveTimeout = approveTimeoutBound(options);
    this.onTeardownError = options.onTeardownError;
    this.approve = options.approve;
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
    // executeBatch: the jobs' own signals are watched from the start, so that a job past the
    // cursor ends when its signal aborts, not when the cursor reaches it.
    const jobs = this.jobs;
    for (let i = 0; i < jobs.length && !this.closed; i++) {
      const jobSignal = jobs[i].signal;
      if (jobSignal !== undefined) this.watch(i, jobs[i], jobSignal);
    }
    // Every job's approval is asked at once, in job order.
    if (this.approve !== undefined)
      for (let i = 0; i < jobs.length && !this.closed; i++) this.ask(i, jobs[i]);
    this.pump();
  }

  /** Asks job `index`'s approval, unless its own signal has already ended it. */
  private ask(index: number, job: Job): void {
    // A job whose signal has aborted has had its final.
    if (job.signal?.aborted === true) return;
    const approve = this.approve as NonNullable<ExecuteOptions['approve']>;
    const answer = askApproval(approve, job, index, this);
    if (this.closed) {
      if (answer instanceof PendingApproval) answer.cancel();
      return;
    }
    if (answer === true) return;
    if (answer instanceof PendingApproval) {
      const outcome = answer.attach(this);
      if (outcome === undefined) {
        (this.approvals ??= new Map()).set(index, answer);
        return;
      }
      if (outcome !== true) this.endUnstarted(index, job.call.id, undefined, outcome);
      return;
    }
    this.endUnstarted(index, job.call.id, undefined, answer);
  }

  approved(pending: PendingApproval): void {
    if (this.closed) return;
    this.approvals?.delete(pending.index);
    // A parked run has its turn already: it waits for a slot now, in the heap, by its index.
    if (pending.parked) this.heap.push(pending.run as CallRun);
    this.pump();
  }

  refused(pending: PendingApproval, error: NotApprovedError): void {
    if (this.closed) return;
    this.endUnstarted(pending.index, pending.callId, pending.run, error);
    this.pump();
  }

  /**
   * Ends a job that has not started, with its final event: past the cursor, the cursor will pass
   * it by; waiting in a chain or the heap, it stays there ended and is passed by when taken; parked
   * for its approval, its chain's turn passes on now. Its pending approval and its signal's watch,
   * if any, are dropped.
   * Returns false when `run` had started: its end is its own.
   */
  private endUnstarted(
    index: number,
    callId: string,
    run: CallRun | undefined,
    error: Error,
  ): boolean {
    if (this.watches !== undefined) this.unwatch(index);
    const pending = this.approvals?.get(index);
    if (pending !== undefined) {
      this.approvals?.delete(index);
      pending.cancel();
    }
    if (run === undefined) {
      (this.skipped ??= new Set()).add(index);
      this.emit({ index, callId, final: true, error });
      return true;
    }
    if (run.abort(error)) return false;
    this.waiting--;
    if (pending?.parked === true && run.chain !== undefined) this.passTurn(run.chain);
    this.emit({ index, callId, final: true, error });
    return true;
  }

  /**
   * Whether `run`, whose turn has come, waits for its approval: it is then parked (holding its
   * chain's turn, no slot) until the answer comes. `counted`: it is already counted as waiting.
   */
  private parks(run: CallRun, counted: boolean): boolean {
    const pending = this.approvals?.get(run.index);
    if (pending === undefined) return false;
    pending.parked = true;
    if (!counted) this.waiting++;
    return true;
  }

  /** Watches job `index`'s signal; one already aborted ends the job now, with its final event. */
  private watch(index: number, job: Job, signal: AbortSignal): void {
    if (signal.aborted) {
      (this.skipped ??= new Set()).add(index);
      this.emit({ index, callId: job.call.id, final: true, error: abortError(signal.reason) });
      return;
    }
    (this.watches ??= new Map()).set(index, new JobWatch(this, index, job.call.id, signal));
  }

  /**
   * A job's own signal aborted. Past the cursor, the cursor will pass it by; waiting in a chain
   * or the heap, it stays there ended and is passed by when taken; started, its run is cancelled
   * and ends through {@link Engine.end}. Then whatever can start starts.
   */
  abortJob(watch: JobWatch): void {
    if (this.closed) return;
    this.watches?.delete(watch.index);
    // A started run ends through end(); any other ends here.
    this.endUnstarted(watch.index, watch.callId, watch.run, abortError(watch.signal.reason));
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
    const index = this.base + this.jobs.length - 1;
    const signal = job.signal;
    // What these emit may push more jobs (and compact the array): the job is passed, not looked up.
    if (signal !== undefined) this.watch(index, job, signal);
    if (this.approve !== undefined && !this.closed) this.ask(index, job);
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

  question(run: CallRun, question: ElicitRequest, answer: ElicitResult | undefined): void {
    if (this.closed) return;
    const callId = run.job.call.id;
    this.emit(
      answer === undefined
        ? { index: run.index, callId, final: false, question }
        : { index: run.index, callId, final: false, question, answer },
    );
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
    if (chain !== undefined) this.passTurn(chain);
    if (this.watches !== undefined) this.unwatch(run.index);
    if (this.closed) return;
    const callId = run.job.call.id;
    this.emit(
      error === undefined
        ? { index: run.index, callId, final: true, result: result as ToolResult }
        : { index: run.index, callId, final: true, error },
    );
    this.pump();
  }

  /**
   * The chain's turn goes to its next unfinished call (into the heap), or the chain frees: a
   * chain named from arguments goes when it idles.
   */
  private passTurn(chain: Chain): void {
    for (;;) {
      const next = chain.queue.shift();
      if (next === undefined) {
        if (chain.key === undefined) chain.busy = false;
        else this.chains.delete(chain.key);
        return;
      }
      if (!next.ended) {
        if (this.approvals === undefined || !this.parks(next, true)) this.heap.push(next);
        return;
      }
      // Aborted by its own signal while it waited: already reported, its turn passes on.
    }
  }

  /** Job `index` has ended: its signal is no longer watched. */
  private unwatch(index: number): void {
    const watch = this.watches?.get(index);
    if (watch === undefined) return;
    watch.stop();
    this.watches?.delete(index);
  }

  teardownError(run: CallRun, thrown: unknown): void {
    reportTeardownError(this.onTeardownError, thrown, run.job, run.index);
  }

  answerTeardownError(run: CallRun, thrown: unknown): void {
    reportTeardownError(this.onTeardownError, thrown, run.job, run.index, "the elicitor's answer");
  }

  approvalTeardownError(pending: PendingApproval, thrown: unknown): void {
    reportTeardownError(
      this.onTeardownError,
      thrown,
      pending.job,
      pending.index,
      "approve's answer",
    );
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
    if (this.watches !== undefined) {
      for (const watch of this.watches.values()) watch.stop();
      this.watches.clear();
    }
    if (this.approvals !== undefined) {
      for (const pending of this.approvals.values()) pending.cancel();
    }
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
    let admitted = this.runningCalls.takeAll();
    this.heap.drainInto(admitted);
    for (const chain of this.chains.values()) chain.queue.drainInto(admitted);
    if (this.approvals !== undefined)
      for (const pending of this.approvals.values())
        if (pending.parked) admitted.push(pending.run!);
    // Calls ended before their turn are still queued, and have had their final.
    if (this.skipped !== undefined || this.watches !== undefined || this.approvals !== undefined)
      admitted = admitted.filter((run) => !run.ended);
    this.dispose();
    for (const run of admitted) run.cancel(error);
    admitted.sort((a, b) => a.index - b.index);
    const destination = this.destination;
    for (const run of admitted) {
      destination.next({ index: run.index, callId: run.job.call.id, final: true, error });
    }
    const jobs = this.jobs;
    const skipped = this.skipped;
    for (let i = this.cursor; i < jobs.length; i++) {
      const index = this.base + i;
      if (skipped?.has(index) === true) continue;
      destination.next({ index, callId: jobs[i].call.id, final: true, error });
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

  /** The run of an admitted job, linked to its job's watch and pending approval when it has them. */
  private newRun(job: Job, index: number, chain: Chain | undefined, barrier: boolean): CallRun {
    const run = new CallRun(this, job, index, chain, barrier);
    if (this.watches !== undefined) {
      const watch = this.watches.get(index);
      if (watch !== undefined) watch.run = run;
    }
    if (this.approvals !== undefined) {
      const pending = this.approvals.get(index);
      if (pending !== undefined) pending.run = run;
    }
    return run;
  }

  /** The run of a job on a chain of its own, or undefined when it is parked for its approval. */
  private unchained(job: Job, index: number): CallRun | undefined {
    const run = this.newRun(job, index, undefined, false);
    if (this.approvals !== undefined && this.parks(run, false)) return undefined;
    return run;
  }

  /** The earliest job whose turn has come, admitting jobs from the cursor as needed (rule 6). */
  private take(): CallRun | undefined {
    if (this.barrier) return undefined;
    for (let ready = this.heap.pop(); ready !== undefined; ready = this.heap.pop()) {
      if (!ready.ended) {
        this.waiting--;
        return ready;
      }
      // Ended while waiting for a slot (uncounted already): its chain goes on.
      if (ready.chain !== undefined) this.passTurn(ready.chain);
    }
    const jobs = this.jobs;
    while (this.cursor < jobs.length) {
      const job = jobs[this.cursor];
      const index = this.base + this.cursor;
      if (this.skipped !== undefined && this.skipped.delete(index)) {
        this.cursor++;
        continue;
      }
      // Serial: one call at a time in job order. With approve, the chains below give that order
      // too under the bound of 1, and keep a resource's later calls behind a call being approved.
      if (this.serial && this.approve === undefined) {
        this.cursor++;
        return this.newRun(job, index, undefined, false);
      }
      const tool = job.tool;
      if (tool === undefined || tool === null) {
        // No tool: its call fails at start with a NoToolError, on a chain of its own.
        this.cursor++;
        const run = this.unchained(job, index);
        if (run === undefined) continue;
        return run;
      }
      if (tool.sequential === true) {
        // A barrier waits for every earlier call to end (and for its own approval), and holds
        // back every later one.
        if (this.running > 0 || this.waiting > 0) return undefined;
        if (this.approvals?.has(index) === true) return undefined;
        this.cursor++;
        this.barrier = true;
        return this.newRun(job, index, undefined, true);
      }
      this.cursor++;
      const named = tool.resource;
      let resource: string;
      if (typeof named === 'string') {
        resource = named;
      } else if (named === undefined) {
        resource = '';
      } else {
        // Named from the arguments: a call they fail for ends with that error, on a chain of
        // its own, and holds no resource's turn.
        try {
          resource = resourceOf(tool, job.call.args);
        } catch (err) {
          // Its approval, if asked, still comes first, as for any call.
          const failed = this.newRun(job, index, undefined, false);
          failed.failure = asError(err);
          if (this.approvals !== undefined && this.parks(failed, false)) continue;
          return failed;
        }
      }
      if (resource === '') {
        const run = this.unchained(job, index);
        if (run === undefined) continue;
        return run;
      }
      let chain = this.chains.get(resource);
      if (chain === undefined) {
        // A resource named from arguments may be one of many (a file each): its chain goes
        // when it idles, so a long executeCalls holds only the chains in use.
        const key = typeof named === 'string' ? undefined : resource;
        chain = { busy: false, queue: new Fifo<CallRun>(), key };
        this.chains.set(resource, chain);
      }
      const run = this.newRun(job, index, chain, false);
      if (!chain.busy) {
        chain.busy = true;
        if (this.approvals !== undefined && this.parks(run, false)) continue;
        return run;
      }
      chain.queue.push(run);
      this.waiting++;
    }
    return undefined;
  }
}
