/**
 * A job's approval (`ExecuteOptions.approve`): asked when the job arrives, awaited while the job
 * waits for nothing else, settled once. Made only for an answer that is not given at once.
 *
 * @module
 */
import { isObservable, type Subscription } from 'rxjs';
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

  constructor(
    /** The job's index in the batch. */
    readonly index: number,
    /** The job's call id. */
    readonly callId: string,
  ) {}

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
      if (this.outcome !== undefined) subscription.unsubscribe();
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
    const subscription = this.subscription;
    this.subscription = undefined;
    subscription?.unsubscribe();
  }

  private settle(outcome: true | NotApprovedError): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    const subscription = this.subscription;
    this.subscription = undefined;
    subscription?.unsubscribe();
    const owner = this.owner;
    if (owner === undefined) return;
    if (outcome === true) owner.approved(this);
    else owner.refused(this, outcome);
  }
}

/**
 * Asks `approve` about job `index`: true when approved at once, the refusing error when refused at
 * once (a throw included), otherwise the pending approval, not yet attached to an owner.
 */
export function askApproval(
  approve: NonNullable<ExecuteOptions['approve']>,
  job: Job,
  index: number,
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
  const pending = new PendingApproval(index, callId);
  pending.follow(answer);
  return pending;
}
