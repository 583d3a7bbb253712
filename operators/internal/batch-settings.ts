/**
 * A batch's settings, resolved once from its options: what the engine (engine.ts) and the solo
 * run (solo-run.ts) hold, and what their calls (call-run.ts) and pending approvals
 * (job-approval.ts) read.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { CallContextOptions } from '../../lib/context.js';
import type { ExecuteOptions, Job } from '../job.js';
import { approveTimeoutBound, capacitiesOf, parallelBound, timeoutBound } from './batch-mode.js';
import { contextOptionsOf } from './call-events.js';
import type { CallRun } from './call-run.js';
import type { PendingApproval } from './job-approval.js';
import { reportTeardownError } from './teardown-errors.js';

/** The options of one batch as its runs read them, each resolved by its rule in batch-mode.ts. */
export class BatchSettings {
  // Declared, and set in the constructor, as the engine's own fields are (engine.ts says why).
  /** What every call's context is made with: the batch's recorder, elicitor and caps. */
  declare readonly contextOptions: CallContextOptions;
  declare readonly onStart: ((job: Job, index: number) => void | Promise<void>) | undefined;
  /** The per-call timeout in ms, or 0 for none. */
  declare readonly timeout: number;
  /** The longest wait for an approval in ms ({@link ExecuteOptions.approveTimeout}), or 0. */
  declare readonly approveTimeout: number;
  /** Schedules the timeouts' timers. */
  declare readonly scheduler: SchedulerLike;
  /** How many calls may run at once (before a serial batch's bound of 1). */
  declare readonly maxParallel: number;
  /** The application's capacities by key, or undefined for none. */
  declare readonly capacities: Map<string, number> | undefined;
  declare readonly approve: ExecuteOptions['approve'];
  declare readonly signal: AbortSignal | undefined;
  declare readonly onTeardownError: ExecuteOptions['onTeardownError'];

  /** @throws RangeError for a capacity that cannot be: the batch fails before anything runs. */
  constructor(options: ExecuteOptions) {
    this.capacities = capacitiesOf(options);
    this.contextOptions = contextOptionsOf(options);
    this.onStart = options.onStart;
    this.timeout = timeoutBound(options);
    this.approveTimeout = approveTimeoutBound(options);
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.maxParallel = parallelBound(options);
    this.approve = options.approve;
    this.signal = options.signal;
    this.onTeardownError = options.onTeardownError;
  }

  /** Unsubscribing `run`'s tool threw: the call's outcome stands, this only reports it. */
  teardownError(run: CallRun, thrown: unknown): void {
    reportTeardownError(this.onTeardownError, thrown, run.job, run.index);
  }

  /** Unsubscribing an elicitor's Observable answer threw: the answer stands, this only reports it. */
  answerTeardownError(run: CallRun, thrown: unknown): void {
    reportTeardownError(this.onTeardownError, thrown, run.job, run.index, "the elicitor's answer");
  }

  /** Unsubscribing the answer of `pending` threw: the approval's outcome stands. */
  approvalTeardownError(pending: PendingApproval, thrown: unknown): void {
    reportTeardownError(
      this.onTeardownError,
      thrown,
      pending.job,
      pending.index,
      "approve's answer",
    );
  }
}
