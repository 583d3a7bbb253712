/**
 * Whose turn it is: the half of the engine that decides which admitted call a free slot takes
 * (engine.ts owns the slots, the events, the end and the watches).
 *
 * - Jobs are admitted lazily through a cursor over the job array, so a 100k batch holds only what
 *   runs or waits. The not-yet-admitted jobs are the ready FIFO, and the cursor its head index.
 * - A job whose resource is busy when the cursor passes it waits in that resource's chain (a
 *   FIFO); when the resource frees, the next call of the chain goes into a min-heap by job index.
 *   A counted resource is busy once `capacity` of its calls hold a turn; a plain one, once one
 *   does. Its capacity is set by the call that finds it idle: the application's for the key when
 *   it gives one, else the one that call states.
 * - A freed slot takes whichever head has the smaller index. Every call in the heap was admitted
 *   before the cursor's job, so that is the heap's top when there is one, else the cursor's job.
 * - A sequential tool's call is a barrier: it waits for every earlier call to end, and holds back
 *   every later one while it runs.
 * - A call whose turn has come while its approval is pending is parked: it holds its chain's turn
 *   and no slot, and enters the heap once approved. A job ended before its turn (its own signal,
 *   a refusal) stays where it waits, marked ended, and is passed by when its turn comes; past the
 *   cursor, the cursor passes it by.
 *
 * @module
 */
import { namedResource } from '../../lib/contract.js';
import type { Job } from '../job.js';
import { asError, CallRun, type Chain, type RunOwner } from './call-run.js';
import type { PendingApproval } from './job-approval.js';
import { Fifo, IndexHeap } from './run-queues.js';

/** What the turns need of the engine that runs the calls. */
export interface TurnsHost extends RunOwner {
  /** How many calls hold a slot now. */
  readonly running: number;
  /** A run was made for job `run.index`: link it to what watches the job (see `watched`). */
  link(run: CallRun): void;
}

/** The turn-taking state of one batch. */
export class Turns {
  // Declared, and set in the constructor, rather than initialised as class fields: see the
  // engine's (engine.ts).
  declare private readonly host: TurnsHost;
  /** One call at a time in job order, ignoring resources (and, without approvals, chains). */
  declare private readonly serial: boolean;
  /** Whether calls are approved first (`ExecuteOptions.approve`). */
  declare private readonly approving: boolean;
  /** The application's capacities by resource key (`ExecuteOptions.capacities`), when it gives any. */
  declare private readonly capacities: ReadonlyMap<string, number> | undefined;
  /** The jobs not yet admitted start at `cursor`; `base` is the index of `jobs[0]`. */
  declare jobs: Job[];
  declare cursor: number;
  declare base: number;
  /** Admitted, not started: in a chain, in the heap, or parked for an approval. */
  declare waiting: number;
  /** A sequential tool's call runs: nothing else may start. */
  declare barrier: boolean;
  /** Whether the host links runs to job watches (set by the host's first watch). */
  declare watched: boolean;
  /** The calls whose turn has come, waiting for a slot; made by the first (a batch of one has none). */
  declare private heap: IndexHeap<CallRun> | undefined;
  /** The chains by resource; made by the first call that names a resource. */
  declare private chains: Map<string, Chain> | undefined;
  /** Jobs past the cursor that ended before their turn: the cursor passes them by. */
  declare private skipped: Set<number> | undefined;
  /** The approvals still to come, by job index; made by the first one. */
  declare approvals: Map<number, PendingApproval> | undefined;

  constructor(
    host: TurnsHost,
    jobs: readonly Job[] | undefined,
    serial: boolean,
    approving: boolean,
    capacities: ReadonlyMap<string, number> | undefined,
  ) {
    this.host = host;
    this.serial = serial;
    this.approving = approving;
    this.capacities = capacities;
    // The batch's array is read, never written: arrive() is for executeCalls' own array.
    this.jobs = jobs === undefined ? [] : (jobs as Job[]);
    this.cursor = 0;
    this.base = 0;
    this.waiting = 0;
    this.barrier = false;
    this.watched = false;
    this.heap = undefined;
    this.chains = undefined;
    this.skipped = undefined;
    this.approvals = undefined;
  }

  /** Whether every admitted job has started or ended, and every job has been admitted. */
  get idle(): boolean {
    return this.waiting === 0 && this.cursor === this.jobs.length;
  }

  /** executeCalls: `job` arrived; its index. The array is compacted as the cursor moves on. */
  arrive(job: Job): number {
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
    return this.base + this.jobs.length - 1;
  }

  /** Job `index`, past the cursor, ended before its turn: the cursor will pass it by. */
  skip(index: number): void {
    (this.skipped ??= new Set()).add(index);
  }

  /** Approval `pending` came: a parked run has its turn already, and waits for a slot now. */
  approved(pending: PendingApproval): void {
    this.approvals?.delete(pending.index);
    if (pending.parked) (this.heap ??= new IndexHeap()).push(pending.run as CallRun);
  }

  /**
   * `run`, admitted but not started, has ended (its signal, a refusal): it no longer waits, and a
   * run parked for its approval gives its chain's turn on now.
   */
  unstarted(run: CallRun, parked: boolean): void {
    this.waiting--;
    if (parked && run.chain !== undefined) this.passTurn(run.chain);
  }

  /** `run` has ended after it started: its barrier lifts, its chain's turn passes on. */
  ended(run: CallRun): void {
    if (run.barrier) this.barrier = false;
    const chain = run.chain;
    if (chain !== undefined) this.passTurn(chain);
  }

  /**
   * Every admitted run that has not started (waiting in the heap, a chain, or parked), into
   * `into`, for a batch aborted: ended ones left out when any job could have ended early.
   */
  drainAdmitted(into: CallRun[]): CallRun[] {
    this.heap?.drainInto(into);
    if (this.chains !== undefined)
      for (const chain of this.chains.values()) chain.queue.drainInto(into);
    if (this.approvals !== undefined)
      for (const pending of this.approvals.values()) if (pending.parked) into.push(pending.run!);
    return into;
  }

  /** Calls `each` for every job not yet admitted that has not ended, in job order. */
  forEachUnadmitted(each: (index: number, job: Job) => void): void {
    const jobs = this.jobs;
    const skipped = this.skipped;
    for (let i = this.cursor; i < jobs.length; i++) {
      const index = this.base + i;
      if (skipped?.has(index) === true) continue;
      each(index, jobs[i]);
    }
  }

  /** Whether any job may have ended before its turn (and so be marked ended where it waits). */
  get mayHoldEnded(): boolean {
    return this.skipped !== undefined || this.watched || this.approvals !== undefined;
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

  /**
   * A turn of the chain ends, and goes to its next unfinished call (into the heap), or the chain
   * has one holder fewer: a chain named from arguments goes when it idles.
   */
  private passTurn(chain: Chain): void {
    chain.holders--;
    for (;;) {
      const next = chain.queue.shift();
      if (next === undefined) {
        if (chain.holders === 0 && chain.key !== undefined) this.chains?.delete(chain.key);
        return;
      }
      if (!next.ended) {
        chain.holders++;
        if (this.approvals === undefined || !this.parks(next, true))
          (this.heap ??= new IndexHeap()).push(next);
        return;
      }
      // Aborted by its own signal while it waited: already reported, its turn passes on.
    }
  }

  /** The run of an admitted job, linked to its job's watch and pending approval when it has them. */
  private newRun(job: Job, index: number, chain: Chain | undefined, barrier: boolean): CallRun {
    const run = new CallRun(this.host, job, index, chain, barrier);
    if (this.watched) this.host.link(run);
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

  /** The capacity of `resource` opened by a call stating `stated`; 1 in a serial batch. */
  private capacityOf(resource: string, stated: number): number {
    if (this.serial) return 1;
    return this.capacities?.get(resource) ?? stated;
  }

  /** The earliest job whose turn has come, admitting jobs from the cursor as needed (rule 6). */
  take(): CallRun | undefined {
    if (this.barrier) return undefined;
    const heap = this.heap;
    if (heap !== undefined)
      for (let ready = heap.pop(); ready !== undefined; ready = heap.pop()) {
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
      if (this.serial && !this.approving) {
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
        if (this.host.running > 0 || this.waiting > 0) return undefined;
        if (this.approvals?.has(index) === true) return undefined;
        this.cursor++;
        this.barrier = true;
        return this.newRun(job, index, undefined, true);
      }
      this.cursor++;
      if (tool.resource === undefined) {
        const run = this.unchained(job, index);
        if (run === undefined) continue;
        return run;
      }
      const run = this.admit(job, index);
      if (run === undefined) continue;
      return run;
    }
    return undefined;
  }

  /**
   * Admits a call whose tool names a resource: its run when its turn has come (or when naming
   * the resource fails), undefined when it waits in its chain or is parked for its approval. Kept
   * out of `take`, which calls without a resource go through alone.
   */
  private admit(job: Job, index: number): CallRun | undefined {
    const named = job.tool.resource;
    let resource: string;
    let capacity = 1;
    if (typeof named === 'string') {
      resource = named;
    } else {
      // Counted, or named from the arguments: a call they fail for (or whose capacity cannot
      // be) ends with that error, on a chain of its own, and holds no resource's turn.
      try {
        const counted = namedResource(job.tool, job.call.args);
        if (typeof counted === 'string') {
          resource = counted;
        } else {
          resource = counted.key;
          capacity = counted.capacity;
        }
      } catch (err) {
        // Its approval, if asked, still comes first, as for any call.
        const failed = this.newRun(job, index, undefined, false);
        failed.failure = asError(err);
        if (this.approvals !== undefined && this.parks(failed, false)) return undefined;
        return failed;
      }
    }
    if (resource === '') return this.unchained(job, index);
    const chains = (this.chains ??= new Map());
    let chain = chains.get(resource);
    if (chain === undefined) {
      // A resource named from arguments may be one of many (a file each): its chain goes
      // when it idles, so a long executeCalls holds only the chains in use.
      const key = typeof named === 'function' ? resource : undefined;
      capacity = this.capacityOf(resource, capacity);
      chain = { holders: 0, capacity, queue: new Fifo<CallRun>(), key };
      chains.set(resource, chain);
    } else if (chain.holders === 0 && chain.capacity !== capacity) {
      // Idle: the call that finds it so sets its capacity (the application's wins).
      chain.capacity = this.capacityOf(resource, capacity);
    }
    const run = this.newRun(job, index, chain, false);
    // Below capacity, no call of the resource waits (see Chain): this one is not overtaking.
    if (chain.holders < chain.capacity) {
      chain.holders++;
      if (this.approvals !== undefined && this.parks(run, false)) return undefined;
      return run;
    }
    chain.queue.push(run);
    this.waiting++;
    return undefined;
  }
}
