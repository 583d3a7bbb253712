/**
 * A job's approval (`ExecuteOptions.approve`): asked when the job arrives, awaited while the job
 * waits for nothing else, settled once. Made only for an answer that is not given at once.
 *
 * @module
 */
import { isObservable, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { describeThrown, NotApprovedError } from '../../lib/errors.js';
import type { CallRun } from './call-run.js';
import type { ExecuteOptions, Job } from '../job.js';

/** What a pending approval tells once its answer has come. */
export interface ApprovalOwner {
  /** The call may go on. */
  approved(pending: PendingApproval): void;
  /** The call is refused, with the error that is its final. */
  refused(pending: PendingApproval, error: NotApprovedError): void;
}

/** What a pending approval reads from its batch: how long it waits, and where it reports. */
export interface ApprovalHost {
  /** The longest wait in ms ({@link ExecuteOptions.approveTimeout}), or 0 for none. */
  readonly approveTimeout: number;
  /** Schedules that wait's timer. */
  readonly scheduler: SchedulerLike;
  /** Unsubscribing the answer of `pending` threw: the approval's outcome stands. */
  approvalTeardownError(pending: PendingApproval, thrown: unknown): void;
}

function fireApproveTimeout(
  this: SchedulerAction<PendingApproval>,
  pending?: PendingApproval,
): void {
  pending?.timedOut();
}

/** An answer as the engine reads it: true, or the error that refuses the call. */
function verdict(answer: unknown, callId: string): true | NotApprovedError {
  if (answer === true) return true;
  if (answer === false) return new NotApprovedError(callId);
  const refusal = answer as { approved?: unknown; reason?: unknown } | null | undefined;
  if (typeof refusal === 'object' && refusal !== null) {
    if (refusal.approved === true) return true;
    if (refusal.approved === false)
      return new NotApprovedError(
        callId,
        typeof refusal.reason === 'string' ? refusal.reason : undefined,
      );
  }
  return new NotApprovedError(
    callId,
    `call "${callId}" was not approved: approve answered ${describeThrown(answer)}, not an approval`,
  );
}

/** A failure of `approve` (a throw, a rejection, an error) as the refusal it is. */
function failure(err: unknown, callId: string): NotApprovedError {
  return new NotApprovedError(callId, describeThrown(err) || undefined, { cause: err });
}

/** An approval still to come. The engine links the job's run to it once the job is admitted. */
export class PendingApproval {
  /** The job's run, once admitted; undefined before. */
  run: CallRun | undefined = undefined;
  /** The run's turn has come (a slot may take it) and it waits for this answer alone. */
  parked = false;
  private subscription: Subscription | undefined = undefined;
  private owner: ApprovalOwner | undefined = undefined; // set once the engine holds it
  private outcome: true | NotApprovedError | undefined = undefined;
  private timer: Subscription | undefined = undefined; // the approveTimeout, while waiting

  constructor(
    /** The job asked about. */
    readonly job: Job,
    /** The job's index in the batch. */
    readonly index: number,
    /** The job's call id. */
    readonly callId: string,
    private readonly host: ApprovalHost,
  ) {}

  /** Starts the wait's timer, when the batch sets approveTimeout and no answer has come yet. */
  time(): void {
    const ms = this.host.approveTimeout;
    if (ms > 0 && this.outcome === undefined)
      this.timer = this.host.scheduler.schedule(fireApproveTimeout, ms, this);
  }

  /** Called by the timer: the answer has not come within approveTimeout. */
  timedOut(): void {
    this.timer = undefined;
    const ms = this.host.approveTimeout;
    const reason = `call "${this.callId}" was not approved: no answer within ${ms} ms`;
    this.settle(new NotApprovedError(this.callId, reason));
  }

  /** Follows `answer`, a Promise or an Observable; its first value (or failure) settles. */
  follow(answer: unknown): void {
    if (isObservable(answer)) {
      const subscription = answer.subscribe({
        next: (value) => this.settle(verdict(value, this.callId)),
        error: (err: unknown) => this.settle(failure(err, this.callId)),
        complete: () =>
          this.settle(
            new NotApprovedError(
              this.callId,
              `call "${this.callId}" was not approved: approve completed without an answer`,
            ),
          ),
      });
      if (this.outcome !== undefined) this.unsubscribe(subscription);
      else this.subscription = subscription;
      return;
    }
    Promise.resolve(answer).then(
      (value) => this.settle(verdict(value, this.callId)),
      (err: unknown) => this.settle(failure(err, this.callId)),
    );
  }

  /** Hands the answer to `owner` from now on; returns it when it has already come. */
  attach(owner: ApprovalOwner): true | NotApprovedError | undefined {
    this.owner = owner;
    return this.outcome;
  }

  /** Stops waiting: the job ended otherwise, or the batch did. A later answer is ignored. */
  cancel(): void {
    if (this.outcome !== undefined) return;
    this.outcome = true;
    this.owner = undefined;
    this.unsubscribe(this.subscription);
  }

  /**
   * Lets go of the answer's Observable. What its teardown throws is reported, never thrown into
   * the answer, the engine or the batch's signal: the outcome stands and the batch goes on.
   */
  private unsubscribe(subscription: Subscription | undefined): void {
    this.subscription = undefined;
    const timer = this.timer;
    this.timer = undefined;
    timer?.unsubscribe();
    if (subscription === undefined) return;
    try {
      subscription.unsubscribe();
    } catch (thrown) {
      this.host.approvalTeardownError(this, thrown);
    }
  }

  private settle(outcome: true | NotApprovedError): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    this.unsubscribe(this.subscription);
    const owner = this.owner;
    if (owner === undefined) return;
    if (outcome === true) owner.approved(this);
    else owner.refused(this, outcome);
  }
}

/**
 * Asks `approve` about job `index`: true when approved at once, the refusing error when refused at
 * once (a throw included), otherwise the pending approval, not yet attached to an owner, timed by
 * `host`'s approveTimeout and reporting to it what its answer's teardown throws.
 */
export function askApproval(
  approve: NonNullable<ExecuteOptions['approve']>,
  job: Job,
  index: number,
  host: ApprovalHost,
): true | NotApprovedError | PendingApproval {
  const callId = job.call.id;
  let answer: unknown;
  let then: unknown;
  try {
    answer = approve(job, index);
    then = (answer as { then?: unknown } | null | undefined)?.then;
  } catch (err) {
    return failure(err, callId);
  }
  if (!isObservable(answer) && typeof then !== 'function') return verdict(answer, callId);
  const pending = new PendingApproval(job, index, callId, host);
  pending.follow(answer);
  pending.time();
  return pending;
}
