/**
 * A job's approval (`ExecuteOptions.approve`): asked when the job arrives, awaited while the job
 * waits for nothing else, settled once. Made only for an answer that is not given at once.
 *
 * @module
 */
import { isObservable, type SchedulerAction, type Subscription } from 'rxjs';
import type { Tool } from '../../lib/contract.js';
import { describeThrown, NotApprovedError } from '../../lib/errors.js';
import { validatorOf, type ArgumentValidator } from '../../lib/validation/argument-validator.js';
import { describeValue } from '../../lib/validation/format.js';
import { toolChecker } from '../../lib/validation/tool-checker.js';
import type { CallRun } from './call-run.js';
import { jobResource } from './batch-mode.js';
import type { BatchSettings } from './batch-settings.js';
import type { ExecuteOptions, Job, Reviewed } from '../job.js';

/** What a pending approval tells once its answer has come. */
export interface ApprovalOwner {
  /** The call may go on (with what the answer added to it, if anything). */
  approved(pending: PendingApproval, review: Review | undefined): void;
  /** The call is refused, with the error that is its final. */
  refused(pending: PendingApproval, error: NotApprovedError): void;
}

/** What a pending approval reads from its batch: how long it waits, and where it reports. */
export interface ApprovalHost {
  /**
   * The batch's settings: the longest wait (`approveTimeout`), the scheduler of its timer, and
   * where what its answer's teardown throws is reported.
   */
  readonly settings: BatchSettings;
}

function fireApproveTimeout(
  this: SchedulerAction<PendingApproval>,
  pending?: PendingApproval,
): void {
  pending?.timedOut();
}

/**
 * What an approval added to its call (`Approval`'s `note`, `args`): the fields its final event
 * carries as they are (job.ts, `Reviewed`), the edited arguments checked; only those given are set.
 */
export type Review = Reviewed;

/** An answer as the engine reads it: true, a Review, or the error that refuses the call. */
function verdict(answer: unknown, job: Job): true | Review | NotApprovedError {
  const callId = job.call.id;
  if (answer === true) return true;
  if (answer === false) return new NotApprovedError(callId);
  const given = answer as { approved?: unknown; reason?: unknown; note?: unknown; args?: unknown };
  if (typeof given === 'object' && given !== null) {
    const note = typeof given.note === 'string' && given.note !== '' ? given.note : undefined;
    if (given.approved === false)
      return new NotApprovedError(
        callId,
        typeof given.reason === 'string' ? given.reason : undefined,
        note === undefined ? undefined : { note },
      );
    if (given.approved === true) {
      const review: { note?: string; editedArgs?: string } = {};
      if (note !== undefined) review.note = note;
      if (given.args !== undefined) {
        const edited = editedArgs(given.args, job);
        if (edited instanceof NotApprovedError) return edited;
        review.editedArgs = edited;
      }
      return note === undefined && given.args === undefined ? true : review;
    }
  }
  return new NotApprovedError(
    callId,
    `call "${callId}" was not approved: approve answered ${describeThrown(answer)}, not an approval`,
  );
}

/** The validators of tools' parameters, for edited arguments: made on the first edit of each. */
const validators = new WeakMap<Tool, ArgumentValidator>();

/**
 * Edited arguments as JSON text once they pass what the model's pass (the tool's `parameters`,
 * through the validator `tool()` uses) and name the resource the model's did; otherwise why not,
 * in words (`its edited arguments ...`). The engine refuses a call whose approval brings ones that
 * do not pass; an application can check them first and let the person correct them (the web
 * front answers 400 with the reason, and the call goes on waiting).
 */
export function checkEditedArgs(args: unknown, job: Job): { text: string } | { why: string } {
  let text: string | undefined;
  if (typeof args === 'string') text = args;
  else if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    try {
      text = JSON.stringify(args);
    } catch (err) {
      return { why: `its edited arguments are not JSON (${describeThrown(err)})` };
    }
  }
  if (text === undefined)
    return {
      why: `its edited arguments must be an object or JSON text, got ${describeValue(args)}`,
    };
  const tool = job.tool;
  if (tool === undefined || tool === null) return { text }; // fails as a missing tool when it runs
  try {
    let validator = validators.get(tool);
    if (validator === undefined) {
      validator = validatorOf(toolChecker(tool.parameters, tool.name, 'linear'), {
        tool: tool.name,
      });
      validators.set(tool, validator);
    }
    validator.parse(text);
  } catch (err) {
    return { why: `its edited arguments do not fit the tool's schema: ${describeThrown(err)}` };
  }
  const waits = jobResource(job);
  const names = jobResource({ ...job, call: { ...job.call, args: text } });
  if (names !== waits)
    return {
      why: `its edited arguments name resource ${JSON.stringify(names)}, not ${JSON.stringify(waits)}, whose turn the call waits for`,
    };
  return { text };
}

/** {@link checkEditedArgs}, its reason as the NotApprovedError that refuses the call. */
function editedArgs(args: unknown, job: Job): string | NotApprovedError {
  const checked = checkEditedArgs(args, job);
  if ('text' in checked) return checked.text;
  const callId = job.call.id;
  return new NotApprovedError(callId, `call "${callId}" was not approved: ${checked.why}`);
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
  private outcome: true | Review | NotApprovedError | undefined = undefined;
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
    const settings = this.host.settings;
    const ms = settings.approveTimeout;
    if (ms > 0 && this.outcome === undefined)
      this.timer = settings.scheduler.schedule(fireApproveTimeout, ms, this);
  }

  /** Called by the timer: the answer has not come within approveTimeout. */
  timedOut(): void {
    this.timer = undefined;
    const ms = this.host.settings.approveTimeout;
    const reason = `call "${this.callId}" was not approved: no answer within ${ms} ms`;
    this.settle(new NotApprovedError(this.callId, reason));
  }

  /** Follows `answer`, a Promise or an Observable; its first value (or failure) settles. */
  follow(answer: unknown): void {
    if (isObservable(answer)) {
      const subscription = answer.subscribe({
        next: (value) => this.settle(verdict(value, this.job)),
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
      (value) => this.settle(verdict(value, this.job)),
      (err: unknown) => this.settle(failure(err, this.callId)),
    );
  }

  /** Hands the answer to `owner` from now on; returns it when it has already come. */
  attach(owner: ApprovalOwner): true | Review | NotApprovedError | undefined {
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
      this.host.settings.approvalTeardownError(this, thrown);
    }
  }

  private settle(outcome: true | Review | NotApprovedError): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    this.unsubscribe(this.subscription);
    const owner = this.owner;
    if (owner === undefined) return;
    if (outcome instanceof NotApprovedError) owner.refused(this, outcome);
    else owner.approved(this, outcome === true ? undefined : outcome);
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
): true | Review | NotApprovedError | PendingApproval {
  const callId = job.call.id;
  let answer: unknown;
  let then: unknown;
  try {
    answer = approve(job, index);
    then = (answer as { then?: unknown } | null | undefined)?.then;
  } catch (err) {
    return failure(err, callId);
  }
  if (!isObservable(answer) && typeof then !== 'function') return verdict(answer, job);
  const pending = new PendingApproval(job, index, callId, host);
  pending.follow(answer);
  pending.time();
  return pending;
}
