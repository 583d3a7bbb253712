/**
 * What a person does to single calls of a running batch from the web front: cancel one (through
 * the job's own `signal`), approve or refuse one before it runs (the engine's `approve` option),
 * and answer a tool's question (the engine's `elicitor` option). One instance per run.
 *
 * @module
 */
import { Observable } from 'rxjs';
import {
  CancelledError,
  type Approval,
  type ElicitRequest,
  type ElicitResult,
  type Job,
  type ToolCall,
} from '../../index.js';
import { checkAnswer } from './check-answer.js';

/** The message of a call cancelled on its own, as its row and its function_call_output show it. */
export const CANCELLED_BY_USER = 'call cancelled by the user';

/**
 * What became of a person's decision on one call: taken; the call waits for none (`not-asked`);
 * an earlier request decided it already (`already`: from another tab, say; the first counts); or
 * why the answer does not fit.
 */
export type Decision =
  'taken' | 'not-asked' | { already: 'approved' | 'refused' | 'answered' } | { invalid: string };

interface Pending<T> {
  readonly answer: (value: T) => void;
}

/** Why arguments a person corrected do not fit the call (in words), or undefined when they do. */
export type ArgsCheck = (args: unknown) => string | undefined;

/** An approval still to come, and the check of arguments a person corrects on approving. */
type PendingApproval = Pending<Approval> & { readonly check: ArgsCheck | undefined };

/** An open question: what was asked, which of the call's questions it is (1 for the first). */
type OpenQuestion = Pending<ElicitResult> & ElicitRequest & { readonly ordinal: number };

/** The per-call controls of one run, by job index. */
export class CallControls {
  private readonly controllers: AbortController[];
  private readonly approvals = new Map<number, PendingApproval>();
  private readonly questions = new Map<number, OpenQuestion>();
  /** The approvals a person gave (true) or refused (false), by index. */
  private readonly decided = new Map<number, boolean>();
  /** How many questions each call asked, and the last one a person answered, by index. */
  private readonly asked = new Map<number, number>();
  private readonly answered = new Map<number, number>();

  /** @param callIds The run's call ids, in job order: they tell which call asks a question. */
  constructor(private readonly callIds: readonly string[]) {
    this.controllers = callIds.map(() => new AbortController());
  }

  /** `jobs` (the run's, in order), each carrying its own signal that cancels that call alone. */
  withSignals(jobs: readonly Job[]): Job[] {
    return jobs.map((job, index) => ({ ...job, signal: this.controllers[index]?.signal }));
  }

  /**
   * Cancels call `index`: a running call ends at once with a CancelledError, a waiting one (or one
   * waiting for an approval or an answer) too, without its tool running. A second request does
   * nothing.
   */
  cancel(index: number): void {
    const controller = this.controllers[index];
    if (controller === undefined || controller.signal.aborted) return;
    controller.abort(new CancelledError(CANCELLED_BY_USER));
  }

  /** Whether call `index` was asked to be cancelled. */
  requested(index: number): boolean {
    return this.controllers[index]?.signal.aborted === true;
  }

  /**
   * The engine's `approve` answer for call `index`: pending until {@link decide} is called for it,
   * forgotten when the engine unsubscribes (the call or the batch was cancelled). `check` vets
   * the arguments an approval corrects before the engine has them (see {@link decide}).
   */
  approval(index: number, check?: ArgsCheck): Observable<Approval> {
    return new Observable<Approval>((subscriber) => {
      this.approvals.set(index, {
        check,
        answer: (approved) => {
          subscriber.next(approved);
          subscriber.complete();
        },
      });
      return () => this.approvals.delete(index);
    });
  }

  /** Whether call `index` waits for a person's approval. */
  awaitsApproval(index: number): boolean {
    return this.approvals.has(index);
  }

  /**
   * Approves or refuses call `index` with `approval` (true, false, or with the person's note and
   * corrected arguments: see `Approval`); `not-asked` when it awaits no approval, and `already`
   * when a person decided it before (the first decision counts). Corrected arguments that the
   * approval's check turns down are `invalid`: the call goes on waiting for a decision, which the
   * engine would otherwise have made a refusal.
   */
  decide(index: number, approval: Approval): Decision {
    const pending = this.approvals.get(index);
    if (pending === undefined) {
      const earlier = this.decided.get(index);
      return earlier === undefined ? 'not-asked' : { already: earlier ? 'approved' : 'refused' };
    }
    if (typeof approval === 'object' && approval.approved && approval.args !== undefined) {
      const invalid = pending.check?.(approval.args);
      if (invalid !== undefined) return { invalid };
    }
    this.approvals.delete(index);
    this.decided.set(index, typeof approval === 'boolean' ? approval : approval.approved);
    pending.answer(approval);
    return 'taken';
  }

  /**
   * The engine's `elicitor`: the question of the call with `call.id` (its first job not yet
   * answered), pending until {@link answer} is called for it, forgotten when the engine
   * unsubscribes (the call ended first). A call id the run does not hold is declined at once.
   * Each call's questions are numbered from 1, in the order it asks them, as the page counts
   * the question events of its row.
   */
  readonly elicitor = (request: ElicitRequest, call: ToolCall): Observable<ElicitResult> =>
    new Observable<ElicitResult>((subscriber) => {
      const index = this.callIds.findIndex(
        (id, i) => id === call.id && !this.questions.has(i) && !this.requested(i),
      );
      if (index < 0) {
        subscriber.next({ action: 'decline' });
        return subscriber.complete();
      }
      const ordinal = (this.asked.get(index) ?? 0) + 1;
      this.asked.set(index, ordinal);
      this.questions.set(index, {
        ...request,
        ordinal,
        answer: (result) => {
          subscriber.next(result);
          subscriber.complete();
        },
      });
      return () => this.questions.delete(index);
    });

  /** The question call `index` asks and has not had answered, if any. */
  question(index: number): ElicitRequest | undefined {
    const pending = this.questions.get(index);
    if (pending === undefined) return undefined;
    return pending.mode === 'url'
      ? { mode: 'url', message: pending.message, url: pending.url }
      : { message: pending.message, schema: pending.schema };
  }

  /**
   * Answers call `index`'s open question. An `accept` must carry content that fits the question's
   * schema ({@link checkAnswer}): otherwise the question stays open and the reason is returned.
   * A URL question's `accept` (the person is back from the page) is not checked: it has no form.
   *
   * `question` says which of the call's questions the answer is for (1 for the first): an answer
   * to one a person answered before is refused with `already` (the first answer counts), and
   * never reaches a question asked since. Without it, the answer is for the question open now.
   */
  answer(index: number, result: ElicitResult, question?: number): Decision {
    const pending = this.questions.get(index);
    if (pending === undefined || (question !== undefined && question !== pending.ordinal)) {
      const answered = this.answered.get(index) ?? 0;
      const stale = question === undefined ? answered > 0 : question <= answered;
      return stale ? { already: 'answered' } : 'not-asked';
    }
    // A page's accept carries no form: the call's context drops its content (see OpenQuestion).
    if (result.action === 'accept' && pending.mode !== 'url') {
      const invalid = checkAnswer(pending.schema, result.content);
      if (invalid !== undefined) return { invalid };
    }
    this.questions.delete(index);
    this.answered.set(index, pending.ordinal);
    pending.answer(result);
    return 'taken';
  }
}
