/**
 * One question a call's context has open: it settles once, with the elicitor's answer or with
 * `cancel`, and tells its context so. Made only when a tool asks, so it costs a call nothing
 * otherwise.
 *
 * @module
 */
import { isObservable, type Subscription } from 'rxjs';
import { checkAnswer } from './check-answer.js';
import { elicitUrlProblem } from './elicit-url.js';
import type { ElicitRequest, ElicitResult, Elicitor, ToolCall } from './contract.js';

/** The answer when nobody can answer: no elicitor is installed. */
export const DECLINED: ElicitResult = Object.freeze({ action: 'decline' });

/** The answer when the question ends unanswered: the call ended, or the elicitor failed. */
export const CANCELLED: ElicitResult = Object.freeze({ action: 'cancel' });

/**
 * The questions one call may ask over its life when no `maxQuestions` is given
 * (`ExecuteOptions.maxQuestions`, `CallContextOptions.maxQuestions`).
 */
export const DEFAULT_MAX_QUESTIONS = 16;

/** The cap a `maxQuestions` option sets: the default for anything below 1 or not a number. */
export function questionBound(max: number | undefined): number {
  return max !== undefined && max >= 1 ? Math.floor(max) : DEFAULT_MAX_QUESTIONS;
}

/** Why the question of call `callId` past its cap of `max` is refused: one line. */
export function tooManyQuestions(callId: string, max: number): RangeError {
  const questions = max === 1 ? 'question' : 'questions';
  return new RangeError(
    `elicit: call ${JSON.stringify(callId)} may ask at most ${max} ${questions} (maxQuestions)`,
  );
}

/** What a question tells when it settles. */
export interface QuestionOwner {
  /** `question` has settled with `answer`: once per question. */
  answered(question: OpenQuestion, answer: ElicitResult): void;
  /** Unsubscribing the elicitor's Observable answer threw: the question's answer stands. */
  teardownError(thrown: unknown): void;
  /**
   * The elicitor accepted with content that does not fit the question's schema (`problem`, one
   * line naming the field, from `checkAnswer`): the question settles with `cancel`.
   */
  misfit(problem: string): void;
  /** Whether accepted content is checked against the question's schema (see `checkAnswers`). */
  readonly checks: boolean;
}

/** Why `request` is not a question a person can be shown, or undefined when it is one. */
export function requestError(request: unknown): TypeError | undefined {
  const r = request as
    Partial<Record<keyof ElicitRequest | 'schema' | 'url', unknown>> | null | undefined;
  if (typeof r !== 'object' || r === null || typeof r.message !== 'string')
    return new TypeError('elicit: the request needs a message string');
  if (r.key !== undefined && (typeof r.key !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(r.key)))
    return new TypeError('elicit: the key must be 1 to 64 letters, digits, _, . or -');
  if (r.mode === 'url') {
    const problem = elicitUrlProblem(r.url);
    return problem === undefined ? undefined : new TypeError(`elicit: ${problem}`);
  }
  if (r.mode !== undefined && r.mode !== 'form')
    return new TypeError('elicit: the mode must be "form" or "url"');
  const schema = r.schema as { type?: unknown; properties?: unknown } | null | undefined;
  if (
    typeof schema !== 'object' ||
    schema === null ||
    schema.type !== 'object' ||
    typeof schema.properties !== 'object' ||
    schema.properties === null
  )
    return new TypeError('elicit: the schema must be a flat object schema with properties');
  return undefined;
}

/** The one answer a URL question accepts with: the person went and came back; no content. */
const WENT: ElicitResult = Object.freeze({ action: 'accept', content: Object.freeze({}) });

/** `value` when it is an ElicitResult, otherwise `cancel`. */
function asAnswer(value: unknown): ElicitResult {
  const v = value as { action?: unknown; content?: unknown } | null | undefined;
  if (typeof v !== 'object' || v === null) return CANCELLED;
  if (v.action === 'decline' || v.action === 'cancel') return value as ElicitResult;
  if (
    v.action === 'accept' &&
    typeof v.content === 'object' &&
    v.content !== null &&
    !Array.isArray(v.content)
  )
    return value as ElicitResult;
  return CANCELLED;
}

/** A question waiting for its answer. */
export class OpenQuestion {
  private subscription: Subscription | undefined = undefined;
  private done = false;

  constructor(
    /** What was asked. */
    readonly request: ElicitRequest,
    /** Whether its context reports it (asked and answered) to its sink. */
    readonly reported: boolean,
    private readonly owner: QuestionOwner,
    private readonly resolve: (answer: ElicitResult) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  /** Whether it has its answer. */
  get settled(): boolean {
    return this.done;
  }

  /** Asks `elicitor`: its first answer settles the question; a failure settles it with cancel. */
  ask(elicitor: Elicitor, call: ToolCall): void {
    let answer: ReturnType<Elicitor>;
    try {
      answer = elicitor(this.request, call);
    } catch {
      return this.settle(CANCELLED);
    }
    if (isObservable(answer)) {
      const subscription = answer.subscribe({
        next: (value) => this.take(value),
        error: () => this.settle(CANCELLED),
        complete: () => this.settle(CANCELLED),
      });
      if (this.done) this.unsubscribe(subscription);
      else this.subscription = subscription;
    } else {
      this.follow(answer);
    }
  }

  /**
   * Settles with what `pending` resolves to (a plain value or a thenable). A rejection is the
   * elicitor's failure, settling with cancel; a parent's (a question this context does not report)
   * is the tool's, passed on: a parent rejects only for the question itself, such as one past its
   * call's `maxQuestions`.
   */
  follow(pending: unknown): void {
    let then: unknown;
    try {
      then = (pending as { then?: unknown } | null | undefined)?.then;
    } catch {
      return this.settle(CANCELLED);
    }
    if (typeof then !== 'function') return this.take(pending);
    Promise.resolve(pending).then(
      (value) => this.take(value),
      (err: unknown) => (this.reported ? this.settle(CANCELLED) : this.refuse(err)),
    );
  }

  /** Ends with the parent's refusal: no longer open, and the tool's promise rejects with it. */
  private refuse(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.owner.answered(this, CANCELLED);
    this.reject(err);
  }

  /**
   * Settles with `value` read as an answer. The answer of this context's own elicitor (a question
   * it reports) is checked against the question's schema first: accepted content that does not fit
   * is told to the owner and settles with `cancel`, as a failing elicitor does; it never reaches
   * the tool. A parent's answer is the parent's to check.
   */
  private take(value: unknown): void {
    if (this.request.mode === 'url') {
      // A page's answer carries nothing but the action: whatever content came with it is dropped.
      const action = (value as { action?: unknown } | null | undefined)?.action;
      return this.settle(action === 'accept' ? WENT : asAnswer(value));
    }
    const answer = asAnswer(value);
    if (answer.action === 'accept' && this.reported && this.owner.checks && !this.done) {
      let problem: string | undefined;
      try {
        problem = checkAnswer(this.request.schema, answer.content);
      } catch {
        problem = undefined; // a schema the check cannot read (from elsewhere): taken as given
      }
      if (problem !== undefined) {
        this.owner.misfit(problem);
        return this.settle(CANCELLED);
      }
    }
    this.settle(answer);
  }

  /** Settles once: stops the elicitor's observable, tells the owner, resolves the tool's promise. */
  settle(answer: ElicitResult): void {
    if (this.done) return;
    this.done = true;
    const subscription = this.subscription;
    this.subscription = undefined;
    if (subscription !== undefined) this.unsubscribe(subscription);
    this.owner.answered(this, answer);
    this.resolve(answer);
  }

  /**
   * Lets go of the elicitor's answer. What its teardown throws goes to the owner, never into the
   * answer, the call's end or the tool: the question settles all the same.
   */
  private unsubscribe(subscription: Subscription): void {
    try {
      subscription.unsubscribe();
    } catch (thrown) {
      this.owner.teardownError(thrown);
    }
  }
}
