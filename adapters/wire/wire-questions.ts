import { Observable, type Subscriber } from 'rxjs';
import type { ElicitResult, Elicitor } from '../../lib/contract.js';

/**
 * The questions a loop's tools ask, held open until a front answers them by the id the wire gave
 * them: pass `elicitor` to `agentLoop`, serve the loop with `toUIMessageStream` or `toAgUiEvents`,
 * and when the person answers the `data-agenttool-question` part (or the `agenttool.question`
 * event), call `answer(id, result)` with that part's `id`.
 *
 * The ids are the wire's, `<callId>-q<n>`: each call's questions are numbered from 1 in the
 * order its tool asks them, as the encoders number them, so two questions one call asks at once
 * are answered apart. A question whose call ends first (cancelled, timed out) is dropped: the
 * engine answers the tool `cancel` and an answer that comes later finds nothing (`answer` returns
 * false). The engine checks every answer against the question's schema, as it does any
 * elicitor's (docs/people.md): an accepted answer that does not fit is `cancel` to the tool.
 *
 * ## Example
 *
 * ```ts
 * const questions = new WireQuestions();
 * const loop$ = agentLoop({ model, tools, input, elicitor: questions.elicitor });
 * // the front posts { id, answer } when the person answers the question's form:
 * questions.answer(body.id, body.answer);
 * ```
 */
export class WireQuestions {
  /** How many questions each call has asked. */
  private readonly asked = new Map<string, number>();
  /** The questions waiting for their answer, by wire id. */
  private readonly waiting = new Map<string, Subscriber<ElicitResult>>();

  /** The elicitor to give the loop. */
  readonly elicitor: Elicitor = (_request, call) => {
    const n = (this.asked.get(call.id) ?? 0) + 1;
    this.asked.set(call.id, n);
    const id = `${call.id}-q${n}`;
    return new Observable<ElicitResult>((subscriber) => {
      this.waiting.set(id, subscriber);
      return () => this.waiting.delete(id);
    });
  };

  /** The ids of the questions waiting for an answer, in the order they were asked. */
  get pending(): string[] {
    return [...this.waiting.keys()];
  }

  /**
   * Answers the question `id`. Returns false when no such question waits: never asked, answered
   * already, or its call ended.
   */
  answer(id: string, result: ElicitResult): boolean {
    const subscriber = this.waiting.get(id);
    if (subscriber === undefined) return false;
    this.waiting.delete(id);
    subscriber.next(result);
    subscriber.complete();
    return true;
  }
}
