/**
 * The executor written as a pipeline of stock RxJS operators: the specification the fused engine
 * (operators/internal/) is checked against, event for event and frame for frame, by
 * marbles/engine-vs-model.test.ts. Read it to understand what `executeBatch` and `executeCalls`
 * do; read the engine to see how it does it fast.
 *
 * ```
 *   jobs ── map: number them ── groupBy: one group per chain ── mergeMap: chains side by side
 *                                                                  │
 *                      mergeMap(capacity): a chain's calls in job order, `capacity` at a time
 *                                                                  │
 *                      pool.run: wait for a slot, run the call, give the slot back
 * ```
 *
 * - A chain is a resource's calls; a job with no resource (or no tool, or a sequential tool under
 *   `executeCalls`) is a chain of its own; a serial batch is one chain. A chain runs up to its
 *   resource's capacity of calls at once (`mergeMap`'s concurrency; 1 is `concatMap`): the
 *   application's `capacities` for the key, else what the chain's first call states, and 1 in a
 *   serial batch. (The engine lets the call that finds a resource idle set it anew; the random
 *   cases state one capacity per key, where the two agree.)
 * - The slot pool is the shared bound. A freed slot goes to the earliest waiting job in job order
 *   (rule 6). It hands slots out one at a time on rxjs's `queueScheduler`, and each call's events
 *   are delivered there too, so the end of a call (its final out, the consumer's handler, the slot
 *   back, its chain's next call asking for a slot) is one step, and the pool grants only after it:
 *   the chain's next call competes for the slot its predecessor freed. A sequential tool under
 *   `executeCalls` is a barrier: granted once every earlier job has ended, and no later job is
 *   granted before it ends.
 * - A call: `onStart`, then the tool, until its first final event (`takeWhile`, inclusive), raced
 *   against its timeout; an error, a completion without a final or a throwing `execute` become an
 *   error final. Unsubscribed before its final, it cancels its context first.
 * - `signal`: `takeUntil` its abort, then a CancelledError final for every unfinished job.
 * - A job's own signal: started, its abort is one more source of the call's final (as a timeout
 *   is); not started, the final goes out at once and the job leaves its chain (`takeUntil`) and
 *   the pool. Already aborted, its final comes on arrival (for a batch, before anything runs).
 * - `approve`: asked on arrival (for a batch, all at subscription); a job enters its chain's
 *   `concatMap` step only once approved, so waiting for a person holds its resource's later calls
 *   and no slot; a refusal ends it as its own signal would. A serial batch with approve is its
 *   chains under a bound of 1.
 *
 * @module
 */
import {
  catchError,
  defaultIfEmpty,
  isObservable,
  ReplaySubject,
  take,
  concat,
  concatMap,
  defer,
  EMPTY,
  from,
  fromEvent,
  groupBy,
  map,
  merge,
  mergeMap,
  Observable,
  observeOn,
  of,
  queueScheduler,
  Subject,
  takeUntil,
  takeWhile,
  tap,
  timer,
  asyncScheduler,
  type OperatorFunction,
  type Subscription,
} from 'rxjs';
import { capacityOf, resourceOf, type ToolEvent, type ToolResult } from '../lib/contract.js';
import { CallContext } from '../lib/context.js';
import {
  CancelledError,
  describeThrown,
  NotApprovedError,
  NoToolError,
  TimeoutError,
  ToolPanicError,
} from '../lib/errors.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../operators/job.js';
import { AgentToolError } from '../lib/errors.js';

// The model's own rules, written from the documented options (operators/job.ts), not imported
// from the engine's helpers: a bug there then shows as a difference (marbles/engine-vs-model.test.ts).

/** The bound a batch runs under: 8 for anything below 1 or not a number (`maxParallel`). */
function parallelBound(options: ExecuteOptions): number {
  const n = options.maxParallel;
  return n !== undefined && n >= 1 ? Math.floor(n) : 8;
}

/** A call's timeout in ms, 0 for none; at most 2^31 - 1, the longest a timer waits (`timeout`). */
function timeoutBound(options: ExecuteOptions): number {
  const t = options.timeout;
  if (t === undefined || !(t > 0) || !Number.isFinite(t)) return 0;
  return Math.min(t, 2 ** 31 - 1);
}

/** A batch runs one call at a time when asked to, bound to 1, or holding a sequential tool. */
function isSerialBatch(jobs: readonly Job[], options: ExecuteOptions): boolean {
  return (
    options.sequential === true ||
    parallelBound(options) === 1 ||
    jobs.some((job) => job.tool?.sequential === true)
  );
}

/** The application's capacities, each an integer >= 1 or Infinity (`capacities`). */
function checkCapacities(options: ExecuteOptions): void {
  for (const [key, capacity] of Object.entries(options.capacities ?? {}))
    if (capacity !== Infinity && !(Number.isInteger(capacity) && capacity >= 1))
      throw new RangeError(
        `capacities[${JSON.stringify(key)}]: capacity must be an integer >= 1 or Infinity, got ${
          Number.isFinite(capacity) ? JSON.stringify(capacity) : 'an out-of-range number'
        }`,
      );
}

/** What a cancelled job fails with: the signal's own agenttool error, else a CancelledError. */
function abortError(reason: unknown): Error {
  if (reason instanceof AgentToolError) return reason;
  const isDomException = typeof DOMException === 'function' && reason instanceof DOMException;
  if (reason instanceof Error && !isDomException)
    return new CancelledError(reason.message, { cause: reason });
  return new CancelledError();
}

/** Waiting requests, the earliest index first: a sorted list, not the engine's heap. */
class EarliestFirst<T extends { readonly index: number }> {
  private readonly items: T[] = [];
  push(item: T): void {
    let at = this.items.length;
    while (at > 0 && this.items[at - 1]!.index > item.index) at--;
    this.items.splice(at, 0, item);
  }
  peek(): T | undefined {
    return this.items[0];
  }
  pop(): T | undefined {
    return this.items.shift();
  }
}

/** The model's options: the engine's, and a switch that plants a known bug in the slot policy. */
export interface ModelOptions extends ExecuteOptions {
  /**
   * Hands a freed slot out at once, before the freeing chain's next call has asked for it: that
   * call is then not preferred for the slot its predecessor freed. The differential test must tell
   * this model from the engine.
   */
  plantedBug?: boolean;
  /** Runs every chain one call at a time, whatever its capacity: the test must tell this too. */
  plantedCapacityBug?: boolean;
}

interface Numbered {
  readonly job: Job;
  readonly index: number;
  readonly state: JobState;
}

/** Where a job is, for its own signal. */
interface JobState {
  started: boolean;
  /** Ended by its own signal before it started. */
  ended: boolean;
  /** Takes a job that has not started out of its chain. */
  readonly withdraw: Subject<void>;
  /** With approve: emits once the job is approved. */
  approved?: ReplaySubject<true>;
}

/** The job's approval as one verdict, or undefined without approve; read as the engine reads it. */
function approvalOf(
  job: Job,
  index: number,
  options: ExecuteOptions,
): Observable<true | Error> | undefined {
  const approve = options.approve;
  if (approve === undefined) return undefined;
  const callId = job.call.id;
  const verdict = (value: unknown): true | Error =>
    value === true || (value as { approved?: unknown } | null)?.approved === true
      ? true
      : value === false
        ? new NotApprovedError(callId)
        : new NotApprovedError(
            callId,
            (value as { approved?: unknown } | null)?.approved === false
              ? String((value as { reason?: unknown }).reason)
              : `call "${callId}" was not approved: approve answered ${describeThrown(value)}, not an approval`,
          );
  const failed = (err: unknown) => of(new NotApprovedError(callId, describeThrown(err)));
  let answer: unknown;
  try {
    answer = approve(job, index);
  } catch (err) {
    return failed(err);
  }
  if (isObservable(answer))
    return answer.pipe(
      take(1),
      map(verdict),
      defaultIfEmpty<true | Error, Error>(
        new NotApprovedError(
          callId,
          `call "${callId}" was not approved: approve completed without an answer`,
        ),
      ),
      catchError(failed),
    );
  if (typeof (answer as { then?: unknown } | null)?.then === 'function')
    return from(answer as Promise<unknown>).pipe(map(verdict), catchError(failed));
  return of(verdict(answer));
}

/** `executeBatch` as a pipeline. */
export function modelBatch(
  jobs: readonly Job[],
  options: ModelOptions = {},
): Observable<ExecutionEvent> {
  const serial = isSerialBatch(jobs, options);
  return defer(() => {
    checkCapacities(options); // a capacity that cannot be fails the batch, aborted or not
    return options.signal?.aborted === true
      ? from(jobs.map((job, index) => cancelled(job, index)))
      : pipeline(from(jobs), options, serial, false, jobs);
  });
}

/** `executeCalls` as a pipeline. */
export function modelCalls(options: ModelOptions = {}): OperatorFunction<Job, ExecutionEvent> {
  const serial = options.sequential === true || parallelBound(options) === 1;
  return (source) =>
    defer(() => {
      checkCapacities(options);
      return options.signal?.aborted === true ? EMPTY : pipeline(source, options, serial, true);
    });
}

function pipeline(
  source: Observable<Job>,
  options: ModelOptions,
  serial: boolean,
  barriers: boolean,
  known?: readonly Job[],
): Observable<ExecutionEvent> {
  return new Observable<ExecutionEvent>((subscriber) => {
    const pool = new SlotPool(serial ? 1 : parallelBound(options), options.plantedBug === true);
    const arrived: Job[] = [];
    const ended = new Set<number>();
    // Finals of jobs their own signal ended before they started, merged into the events.
    const side = new Subject<ExecutionEvent>();
    const stopWatching: (() => void)[] = [];
    let live = false; // the events are subscribed: what ends a job goes out through `side`
    const states: JobState[] = [];
    /** Ends a job that has not started with `error`: at once, and out of its chain and the pool. */
    const endUnstarted = (job: Job, index: number, state: JobState, error: Error) => {
      if (state.started || state.ended) return;
      state.ended = true;
      const event: ExecutionEvent = { index, callId: job.call.id, final: true, error };
      if (!live) {
        ended.add(index);
        subscriber.next(event);
        return;
      }
      pool.hold(() => {
        side.next(event);
        state.withdraw.next();
        pool.forget(index);
      });
    };
    const prepare = (job: Job, index: number): JobState => {
      const state: JobState = { started: false, ended: false, withdraw: new Subject<void>() };
      states[index] = state;
      const signal = job.signal;
      if (signal?.aborted === true) {
        endUnstarted(job, index, state, abortError(signal.reason));
        return state;
      }
      if (signal === undefined) return state;
      const onAbort = () => endUnstarted(job, index, state, abortError(signal.reason));
      signal.addEventListener('abort', onAbort);
      stopWatching.push(() => signal.removeEventListener('abort', onAbort));
      return state;
    };
    /** Asks the job's approval: refused, it ends; approved, `state.approved` lets it into its chain. */
    const ask = (job: Job, index: number, state: JobState) => {
      const answer = approvalOf(job, index, options);
      if (answer === undefined || state.ended) return;
      const approved = new ReplaySubject<true>(1);
      state.approved = approved;
      const subscription = answer.subscribe((verdict) => {
        if (verdict === true) approved.next(true);
        else endUnstarted(job, index, state, verdict);
      });
      stopWatching.push(() => subscription.unsubscribe());
    };
    // A batch's jobs already aborted end first, in job order, then those refused at once, before
    // anything runs.
    if (known !== undefined) {
      known.forEach((job, index) => prepare(job, index));
      known.forEach((job, index) => ask(job, index, states[index]!));
    }
    const arrive = (job: Job, index: number): JobState => {
      if (known !== undefined) {
        const state = states[index]!;
        if (!state.ended) pool.arrive(index, isBarrier(job));
        return state;
      }
      const state = prepare(job, index);
      if (!state.ended) pool.arrive(index, isBarrier(job));
      ask(job, index, state);
      return state;
    };
    const approving = options.approve !== undefined;
    // Under approve, a serial batch is its chains under a bound of 1 (a call being approved holds
    // its resource's later calls, no others), and a sequential tool is a barrier in it.
    const isBarrier = (job: Job) =>
      (serial ? approving : barriers) && job.tool?.sequential === true;
    const chainOf = ({ job, index }: Numbered) =>
      serial && !approving
        ? ''
        : job.tool == null || isBarrier(job)
          ? index
          : namedResource(job) || index;

    // The capacity of each chain, set by its first call.
    const capacities = new Map<string | number, number>();
    const capacityOfChain = (key: string | number, { job }: Numbered): number => {
      if (typeof key === 'number' || serial || options.plantedCapacityBug === true) return 1;
      const given = options.capacities;
      return given !== undefined && Object.hasOwn(given, key) ? given[key]! : statedCapacity(job);
    };

    const chained = source.pipe(
      map((job, index): Numbered => {
        arrived.push(job);
        const numbered = { job, index, state: arrive(job, index) };
        const key = chainOf(numbered);
        if (!capacities.has(key)) capacities.set(key, capacityOfChain(key, numbered));
        return numbered;
      }),
      groupBy(chainOf),
      mergeMap((chain) =>
        chain.pipe(
          mergeMap(({ job, index, state }) => {
            if (state.ended) return EMPTY;
            const call = pool.run(
              index,
              defer(() => {
                state.started = true;
                return runCall(job, index, options, serial && !approving);
              }),
            );
            const gated =
              state.approved === undefined
                ? call
                : state.approved.pipe(
                    take(1),
                    concatMap(() => call),
                  );
            return gated.pipe(takeUntil(state.withdraw));
          }, capacities.get(chain.key)),
        ),
      ),
      tap({ complete: () => side.complete() }),
    );
    live = true;
    let events = merge(side, chained).pipe(
      tap((event) => {
        if (event.final) ended.add(event.index);
      }),
    );
    const signal = options.signal;
    if (signal !== undefined) {
      const aborted = fromEvent(signal, 'abort').pipe(tap(() => pool.close()));
      const unfinished = defer(() =>
        from(arrived.flatMap((job, index) => (ended.has(index) ? [] : [cancelled(job, index)]))),
      );
      events = concat(events.pipe(takeUntil(aborted)), unfinished);
    }
    subscriber.add(() => pool.close()); // first of the teardowns: no grant while calls are torn down
    subscriber.add(() => stopWatching.forEach((stop) => stop()));
    events.subscribe(subscriber);
  });
}

/** The resource a call names; "" for none, or when naming it fails (the call fails alone). */
function namedResource(job: Job): string {
  try {
    return resourceOf(job.tool, job.call.args);
  } catch {
    return '';
  }
}

/** The capacity a call states for its resource; 1 when naming it fails (it takes no turn). */
function statedCapacity(job: Job): number {
  try {
    return capacityOf(job.tool, job.call.args);
  } catch {
    return 1;
  }
}

/** Why a call's resource cannot be named from its arguments, or undefined when it can. */
function resourceFailure(job: Job): Error | undefined {
  try {
    resourceOf(job.tool, job.call.args);
    return undefined;
  } catch (err) {
    return asError(err);
  }
}

/** One call, from its slot to its final event. */
function runCall(
  job: Job,
  index: number,
  options: ExecuteOptions,
  serialRun: boolean,
): Observable<ExecutionEvent> {
  const callId = job.call.id;
  const failed = (error: Error): ExecutionEvent => ({ index, callId, final: true, error });
  const started = defer(() => {
    const onStart = options.onStart;
    if (onStart === undefined) return of(undefined);
    const pending = onStart(job, index);
    const then = pending === undefined || pending === null ? undefined : pending.then;
    return typeof then === 'function' ? from(Promise.resolve(pending)) : of(undefined);
  });
  // The job's own signal, once the call has started: one more way for it to end, in onStart too.
  const signal = job.signal;
  const stopped =
    signal === undefined
      ? EMPTY
      : fromEvent(signal, 'abort').pipe(map(() => failed(abortError(signal.reason))));
  return merge(
    stopped,
    started.pipe(
      concatMap(() => {
        if (job.tool == null) return of(failed(new NoToolError(callId)));
        const unnamed = serialRun ? undefined : resourceFailure(job);
        return unnamed === undefined ? toolCall(job, index, options) : of(failed(unnamed));
      }),
      catchError((err: unknown) => of(failed(asError(err)))), // onStart refused the call
    ),
  ).pipe(
    // Each event is one step on the queueScheduler, and the call's end (its final out, then its
    // completion giving the slot back) is one step: the pool grants only after it.
    observeOn(queueScheduler),
    takeWhile((event) => !event.final, true),
  );
}

/** The tool's events until the first final, raced against the timeout. */
function toolCall(job: Job, index: number, options: ExecuteOptions): Observable<ExecutionEvent> {
  const { tool, call } = job;
  const callId = call.id;
  return new Observable<ExecutionEvent>((subscriber) => {
    const progress = new Subject<ToolResult>();
    const context = new CallContext(call, {
      sink: { progress: (result) => progress.next(result) },
      recorder: options.recorder,
    });
    const failed = (error: Error): ExecutionEvent => ({ index, callId, final: true, error });
    const panic = (value: unknown, message?: string) =>
      failed(new ToolPanicError(tool.name, value, message));
    const events = defer(() => {
      let source: Observable<ToolEvent>;
      try {
        source = tool.execute(call, context);
      } catch (err) {
        return of(panic(err)); // execute threw: a contract break, whatever it threw
      }
      return concat(
        source.pipe(map(({ final, result }): ExecutionEvent => ({ index, callId, final, result }))),
        defer(() => of(panic(undefined, 'completed without a final event'))),
      ).pipe(catchError((err: unknown) => of(err instanceof Error ? failed(err) : panic(err))));
    });
    const timeout = timeoutBound(options);
    const timedOut =
      timeout === 0
        ? EMPTY
        : timer(timeout, options.scheduler ?? asyncScheduler).pipe(
            map(() => {
              const error = new TimeoutError(timeout);
              context.cancel(error);
              return failed(error);
            }),
          );
    // First of the teardowns: the context is cancelled before the tool is unsubscribed (nothing
    // happens once the call has ended).
    subscriber.add(() => context.cancel());
    merge(
      progress.pipe(map((result): ExecutionEvent => ({ index, callId, final: false, result }))),
      events,
      timedOut,
    )
      .pipe(
        tap((event) => {
          if (event.final) context.finish();
        }),
        takeWhile((event) => !event.final, true),
      )
      .subscribe(subscriber);
  });
}

function cancelled(job: Job, index: number): ExecutionEvent {
  return { index, callId: job.call.id, final: true, error: new CancelledError() };
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(describeThrown(value), { cause: value });
}

interface Request {
  readonly index: number;
  /** Granted, or withdrawn: either way no longer waiting. */
  done: boolean;
  grant(): void;
}

/**
 * The bound shared by every chain: `run(index, call)` subscribes `call` once a slot is granted and
 * gives the slot back when it ends or is unsubscribed. Grants go to the earliest waiting index.
 */
class SlotPool {
  private free: number;
  private readonly waiting = new EarliestFirst<Request>(); // the earliest index first
  private readonly unfinished = new Set<number>(); // arrived, not ended
  private readonly barriers: number[] = []; // unfinished barrier indices, in order
  private closed = false;
  private pending = false; // a dispatch is queued

  constructor(
    size: number,
    private readonly plantedBug: boolean,
  ) {
    this.free = size;
  }

  private holding = 0; // inside hold(): grants wait until it returns
  private wanted = false; // a grant was asked for while holding

  arrive(index: number, barrier: boolean): void {
    this.unfinished.add(index);
    if (barrier) this.barriers.push(index);
  }

  /** A job ended before it was granted: it no longer holds a barrier back. */
  forget(index: number): void {
    this.unfinished.delete(index);
    const at = this.barriers.indexOf(index);
    if (at >= 0) this.barriers.splice(at, 1);
    this.dispatchSoon();
  }

  /**
   * Runs `emit` (an event going out) with grants held until it returns, as a call's end is one
   * step: what the consumer's handler sets off is granted after it.
   */
  hold(emit: () => void): void {
    this.holding++;
    try {
      emit();
    } finally {
      this.holding--;
    }
    if (this.holding === 0 && this.wanted) {
      this.wanted = false;
      this.dispatchSoon();
    }
  }

  close(): void {
    this.closed = true;
  }

  run<T>(index: number, call: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      let running: Subscription | undefined;
      const request: Request = {
        index,
        done: false,
        grant: () => {
          request.done = true;
          running = call.subscribe(subscriber);
        },
      };
      this.waiting.push(request);
      this.dispatchSoon();
      return () => {
        if (running === undefined) {
          request.done = true; // withdrawn before its grant: left in the heap, skipped
          return;
        }
        running.unsubscribe();
        this.unfinished.delete(index);
        if (this.barriers[0] === index) this.barriers.shift();
        this.free++;
        if (this.plantedBug) this.dispatch();
        else this.dispatchSoon();
      };
    });
  }

  /**
   * Grants on the queueScheduler, after the step in progress (a call's end) has finished; one
   * pending grant at a time, so each grant comes after what the one before it set off.
   */
  private dispatchSoon(): void {
    if (this.holding > 0) {
      this.wanted = true;
      return;
    }
    if (this.pending) return;
    this.pending = true;
    queueScheduler.schedule(() => {
      this.pending = false;
      this.dispatch();
    });
  }

  /**
   * Grants one slot, to the earliest waiting job allowed to start, then asks again: a call that
   * ends as it starts has given its slot back (and its chain's next call has asked for one) before
   * the next slot is handed out.
   */
  private dispatch(): void {
    let next = this.waiting.peek();
    while (next?.done === true) {
      this.waiting.pop();
      next = this.waiting.peek();
    }
    if (this.closed || this.free === 0 || next === undefined) return;
    const barrier = this.barriers[0];
    if (barrier !== undefined && next.index > barrier) return; // held back by a barrier
    if (next.index === barrier && [...this.unfinished].some((i) => i < barrier)) return;
    this.waiting.pop();
    this.free--;
    next.grant();
    this.dispatchSoon();
  }
}
