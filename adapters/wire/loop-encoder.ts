/**
 * What the wire encoders share: one pass over a loop's events that keeps the bookkeeping every
 * front needs (which text is being written, which calls the model is still writing, which calls a
 * person refused, which question an answer belongs to) and hands each step to the encoder of one
 * protocol as a named method. `toUIMessageStream` and `toAgUiEvents` are each a subclass.
 *
 * @module
 */
import { Observable, Subscription } from 'rxjs';
import type { ElicitRequest, ElicitResult, ToolResult } from '../../lib/contract.js';
import type { FunctionCallItem, ToolOutput } from '../../lib/open-responses.js';
import { errorResult } from '../../lib/result.js';
import type { Approval, ExecutionErrorEvent, ExecutionResultEvent } from '../../operators/job.js';
import type {
  LoopApproval,
  LoopCallEvent,
  LoopEnd,
  LoopEvent,
} from '../../operators/loop-events.js';
import { withReview } from '../../operators/to-output-items.js';

/** A question a call asked, as the wire sends it: asked (`answer` undefined), then answered. */
export interface WireQuestion {
  /** The question's id on the wire, the same when asked and when answered: `<callId>-q<n>`. */
  readonly id: string;
  /** The call that asks. */
  readonly toolCallId: string;
  /** The tool of that call. */
  readonly toolName: string;
  /** What the tool asks (`context.elicit`). */
  readonly question: ElicitRequest;
  /** The answer, once given. */
  readonly answer?: ElicitResult;
}

/**
 * The encoder of one protocol: {@link encodeLoop} calls `begin` once on subscription, `encode`
 * for each of the loop's events, then `end` when the loop completes or `fail` when it errors
 * (or when encoding throws). Each hands the protocol's events for that step, in order, to the
 * `send` it is given, all at once when the step has run: a step that throws sends nothing.
 */
export abstract class LoopEncoder<C> {
  /** The text being written, closed by the model's next event that is not more of it. */
  private openText: string | undefined;
  /** The calls whose writing began (`call-start`) and has not ended (`call`), with their names. */
  protected readonly writing = new Map<string, string>();
  /** The calls a person refused: their failure is a refusal, not an error. */
  private readonly refused = new Set<string>();
  private readonly questions = new QuestionIds();
  /** The step's events; one array for every step, emptied once they are sent. */
  private readonly out: C[] = [];

  /** The protocol's opening events. */
  begin(send: (chunk: C) => void): void {
    this.opened();
    this.flush(send);
  }

  /** The protocol's events for one of the loop's events. */
  encode(event: LoopEvent, send: (chunk: C) => void): void {
    this.step(event);
    this.flush(send);
  }

  /** The closing events once the loop completed. */
  end(send: (chunk: C) => void): void {
    this.closeText();
    this.completed();
    this.flush(send);
  }

  /** The closing events once the loop failed with `error`. */
  fail(error: unknown, send: (chunk: C) => void): void {
    this.out.splice(0); // what the failed step queued is not sent
    this.failed(error);
    this.flush(send);
  }

  /** Queues one of the protocol's events. */
  protected emit(chunk: C): void {
    this.out.push(chunk);
  }

  private flush(send: (chunk: C) => void): void {
    const out = this.out;
    // Most steps make one event. The queue is emptied before sending, which can re-enter (a
    // subscriber that unsubscribes runs the loop's teardown); `pop` is cheap where setting
    // `length` is a call into the runtime.
    if (out.length === 1) return send(out.pop()!);
    if (out.length === 0) return;
    for (const chunk of out.splice(0)) send(chunk);
  }

  private step(event: LoopEvent): void {
    switch (event.type) {
      case 'turn-start':
        return this.turnStarted(event.turn);
      case 'text-delta':
        if (event.delta === '') return; // nothing to show, and AG-UI refuses an empty delta
        if (this.openText !== event.id) {
          this.closeText();
          this.openText = event.id;
          this.textStarted(event.id);
        }
        return this.textDelta(event.id, event.delta);
      case 'call-start':
        this.closeText();
        this.writing.set(event.callId, event.name);
        return this.callStarted(event.callId, event.name);
      case 'call-delta':
        // A piece of a call whose start never came has nowhere to go on either wire.
        if (event.delta === '' || !this.writing.has(event.callId)) return;
        return this.callDelta(event.callId, event.delta);
      case 'call':
        this.closeText();
        this.callWritten(event.call, this.writing.delete(event.call.call_id));
        return;
      case 'approval':
        return this.approval(event);
      case 'call-event':
        return this.callEvent(event);
      case 'turn-end':
        this.closeText();
        return this.turnEnded(event.turn);
      case 'loop-end':
        this.closeText();
        return this.loopEnded(event);
    }
  }

  private approval(event: LoopApproval): void {
    if (event.answer === undefined) return this.approvalAsked(event.call);
    const answer = approvalAnswer(event.answer);
    if (!answer.approved) this.refused.add(event.callId);
    this.approvalGiven(event.call, answer);
  }

  private callEvent({ call, event }: LoopCallEvent): void {
    if (event.question !== undefined) {
      const callId = call.call_id;
      const id =
        event.answer === undefined
          ? this.questions.asked(callId, event.question)
          : this.questions.answered(callId, event.question);
      const asked = { id, toolCallId: callId, toolName: call.name, question: event.question };
      return this.question(event.answer === undefined ? asked : { ...asked, answer: event.answer });
    }
    if (!event.final) return this.progress(call, event.result);
    if (event.error === undefined) return this.result(call, event);
    if (this.refused.delete(call.call_id)) return this.refusal(call, event);
    this.failure(call, event);
  }

  private closeText(): void {
    if (this.openText === undefined) return;
    const id = this.openText;
    this.openText = undefined;
    this.textEnded(id);
  }

  /** On subscription, before the loop's first event. */
  protected abstract opened(): void;
  /** A turn began. */
  protected abstract turnStarted(turn: number): void;
  /** The model began a text (a message) named `id`. */
  protected abstract textStarted(id: string): void;
  /** A piece of text `id`; never empty. */
  protected abstract textDelta(id: string, delta: string): void;
  /** Text `id` ended: the model went on to something else, or the turn ended. */
  protected abstract textEnded(id: string): void;
  /** The model began writing a call. */
  protected abstract callStarted(callId: string, name: string): void;
  /** A piece of a call's arguments; never empty. */
  protected abstract callDelta(callId: string, delta: string): void;
  /** The model finished writing `call`; `streamed` says whether its start was seen. */
  protected abstract callWritten(call: FunctionCallItem, streamed: boolean): void;
  /** The loop asks whether `call` may run. */
  protected abstract approvalAsked(call: FunctionCallItem): void;
  /** The answer about `call`. */
  protected abstract approvalGiven(call: FunctionCallItem, answer: ApprovalAnswer): void;
  /** A question a call asked, or its answer. */
  protected abstract question(question: WireQuestion): void;
  /** A progress update of a running call. */
  protected abstract progress(call: FunctionCallItem, update: ToolResult): void;
  /** A call's final result. */
  protected abstract result(call: FunctionCallItem, event: ExecutionResultEvent): void;
  /** The final event of a call a person refused. */
  protected abstract refusal(call: FunctionCallItem, event: ExecutionErrorEvent): void;
  /** A call's failure. */
  protected abstract failure(call: FunctionCallItem, event: ExecutionErrorEvent): void;
  /** A turn ended (its text closed already). */
  protected abstract turnEnded(turn: number): void;
  /** The loop's last event. */
  protected abstract loopEnded(event: LoopEnd<unknown>): void;
  /** The loop completed (after `loop-end`, or without one). */
  protected abstract completed(): void;
  /** The loop failed. */
  protected abstract failed(error: unknown): void;
}

/** An {@link Approval} in one shape: approved or not, with what the person wrote. */
export interface ApprovalAnswer {
  /** Whether the call may run. */
  readonly approved: boolean;
  /** Why not, when refused with a reason. */
  readonly reason?: string;
  /** What the person wrote beside the decision. */
  readonly note?: string;
  /** The arguments the person corrected, when approving. */
  readonly args?: string | { readonly [key: string]: unknown };
}

function approvalAnswer(answer: Approval): ApprovalAnswer {
  if (typeof answer === 'boolean') return { approved: answer };
  const { approved, note } = answer;
  const reason = answer.approved ? undefined : answer.reason;
  const args = answer.approved ? answer.args : undefined;
  return {
    approved,
    ...(reason !== undefined && { reason }),
    ...(note !== undefined && { note }),
    ...(args !== undefined && { args }),
  };
}

/**
 * Numbers each call's questions, so an answer travels under its question's id: found by the
 * question object the engine emits twice, else (events that went through a copy) the call's
 * oldest open question.
 */
class QuestionIds {
  private readonly open = new Map<string, { question: ElicitRequest; id: string }[]>();
  private readonly counts = new Map<string, number>();

  asked(callId: string, question: ElicitRequest): string {
    const n = (this.counts.get(callId) ?? 0) + 1;
    this.counts.set(callId, n);
    const id = `${callId}-q${n}`;
    const open = this.open.get(callId) ?? [];
    open.push({ question, id });
    this.open.set(callId, open);
    return id;
  }

  answered(callId: string, question: ElicitRequest): string {
    const open = this.open.get(callId) ?? [];
    const at = Math.max(
      0,
      open.findIndex((entry) => entry.question === question),
    );
    const entry = open[at];
    if (entry === undefined) return this.asked(callId, question); // an answer to a question never shown
    open.splice(at, 1);
    return entry.id;
  }
}

/**
 * What the model reads for a call's final event: the result's output, or `Error: <message>`,
 * with what a reviewer added (as `toOutputItems` sends it).
 */
export function modelOutput(event: ExecutionResultEvent | ExecutionErrorEvent): ToolOutput {
  const output = event.error === undefined ? event.result.output : errorResult(event.error).output;
  return withReview(output, event);
}

/** The message of a thrown value, on one line. */
export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}

/**
 * Runs `encoder` over `loop$`: its opening events on subscription, then each event's, then its
 * closing events. A loop that errors, or an encoder that throws, ends with `fail`'s events and
 * completes: the wire reports the failure in its own terms. Unsubscribing unsubscribes the loop.
 *
 * One subscriber that sends each step's events straight on, rather than `concatMap` over an
 * array per event: an inner subscription per event tripled the cost of a turn on the wire
 * (BENCHMARKS.md, scenario 13).
 */
export function encodeLoop<C>(
  loop$: Observable<LoopEvent>,
  encoder: () => LoopEncoder<C>,
): Observable<C> {
  return new Observable<C>((subscriber) => {
    const current = encoder();
    const send = (chunk: C): void => subscriber.next(chunk);
    let ended = false;
    const fail = (error: unknown): void => {
      if (ended) return;
      ended = true;
      current.fail(error, send);
      subscriber.complete();
    };
    try {
      current.begin(send);
    } catch (error) {
      fail(error);
      return;
    }
    const source = new Subscription();
    source.add(
      loop$.subscribe({
        next: (event) => {
          if (ended) return;
          try {
            current.encode(event, send);
          } catch (error) {
            fail(error);
            source.unsubscribe();
          }
        },
        error: fail,
        complete: () => {
          if (ended) return;
          try {
            current.end(send);
          } catch (error) {
            return fail(error);
          }
          ended = true;
          subscriber.complete();
        },
      }),
    );
    // An encoder that threw while the loop emitted at subscription stopped before `add`.
    if (ended) source.unsubscribe();
    return source;
  });
}
