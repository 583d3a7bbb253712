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

/** What became of a person's decision on one call: taken, or why not. */
export type Decision = 'taken' | 'not-asked' | { invalid: string };

interface Pending<T> {
  readonly answer: (value: T) => void;
}

/** The per-call controls of one run, by job index. */
export class CallControls {
  private readonly controllers: AbortController[];
  private readonly approvals = new Map<number, Pending<Approval>>();
  private readonly questions = new Map<number, Pending<ElicitResult> & ElicitRequest>();

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
   * forgotten when the engine unsubscribes (the call or the batch was cancelled).
   */
  approval(index: number): Observable<Approval> {
    return new Observable<Approval>((subscriber) => {
      this.approvals.set(index, {
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

  /** Approves (true) or refuses (false) call `index`; `not-asked` when it awaits no approval. */
  decide(index: number, approved: boolean): Decision {
    const pending = this.approvals.get(index);
    if (pending === undefined) return 'not-asked';
    this.approvals.delete(index);
    pending.answer(approved);
    return 'taken';
  }

  /**
   * The engine's `elicitor`: the question of the call with `call.id` (its first job not yet
   * answered), pending until {@link answer} is called for it, forgotten when the engine
   * unsubscribes (the call ended first). A call id the run does not hold is declined at once.
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
      this.questions.set(index, {
        ...request,
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
   */
  answer(index: number, result: ElicitResult): Decision {
    const pending = this.questions.get(index);
    if (pending === undefined) return 'not-asked';
    // A page's accept carries no form: the call's context drops its content (see OpenQuestion).
    if (result.action === 'accept' && pending.mode !== 'url') {
      const invalid = checkAnswer(pending.schema, result.content);
      if (invalid !== undefined) return { invalid };
    }
    this.questions.delete(index);
    pending.answer(result);
    return 'taken';
  }
}
