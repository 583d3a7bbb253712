/**
 * Cancelling one call of a running batch, which the engine itself does not offer (unsubscribing
 * or aborting its signal stops them all): each job's tool is wrapped so that its observable errors
 * with a CancelledError when that call is cancelled. The engine then reports it as it reports any
 * failure, with one final event, and unsubscribes from the tool, whose signal aborts (`bash` kills
 * its process group).
 *
 * @module
 */
import { Observable, Subject, UnsubscriptionError, type Subscriber } from 'rxjs';
import {
  CancelledError,
  type Job,
  type Tool,
  type ToolCall,
  type ToolContext,
  type ToolEvent,
  type ToolResult,
} from '../../index.js';
import { CallConsumer, ENDED } from '../../lib/call-consumer.js';

/** The message of a call cancelled on its own, as its row and its function_call_output show it. */
export const CANCELLED_BY_USER = 'call cancelled by the user';

/** The cancel requests of one batch, by job index. */
export class CallCancellation {
  private readonly requests = new Subject<number>();
  private readonly asked = new Set<number>();

  /**
   * Asks for call `index` to be cancelled: a running call ends at once with a CancelledError, a
   * waiting one when its turn comes, without its tool running. A second request does nothing.
   */
  cancel(index: number): void {
    if (this.asked.has(index)) return;
    this.asked.add(index);
    this.requests.next(index);
  }

  /** Whether call `index` was asked to be cancelled. */
  requested(index: number): boolean {
    return this.asked.has(index);
  }

  /**
   * The jobs with their tools wrapped, one wrapper per job. A wrapper is the tool with only
   * `execute` replaced (it inherits every other property), so resources, serial mode and
   * annotations schedule exactly as before.
   */
  wrap(jobs: readonly Job[]): Job[] {
    return jobs.map((job, index) => ({ tool: this.wrapTool(job.tool, index), call: job.call }));
  }

  private wrapTool(tool: Tool, index: number): Tool {
    const execute: Tool['execute'] = (call, context) =>
      new Observable<ToolEvent>((subscriber) => {
        if (this.asked.has(index)) return subscriber.error(new CancelledError(CANCELLED_BY_USER));
        const consumer = new CancellableCall(subscriber);
        // The cancel watch ends with the call: a tool that completes without a final event still
        // reaches the engine as the contract break the consumer makes of it.
        subscriber.add(
          this.requests.subscribe((i) => {
            if (i === index) consumer.cancelByUser();
          }),
        );
        consumer.run(tool, call, context);
        // Returned, not added before the run: a call that ended inside run has its teardown run as
        // subscribe returns, where what it throws reaches the engine's report.
        return () => consumer.dispose();
      });
    return Object.create(tool, { execute: { value: execute, enumerable: true } }) as Tool;
  }
}

/**
 * One wrapped call: consumes the tool by the rules of {@link CallConsumer} and passes its progress
 * and its end on to the engine, or ends it with a CancelledError when the user cancels it. What the
 * tool's teardown throws is thrown again from the wrapper's own teardown, so the engine reports it
 * as it reports any teardown error.
 */
class CancellableCall extends CallConsumer {
  private teardownThrew = false;
  private thrown: unknown = undefined;

  constructor(private readonly subscriber: Subscriber<ToolEvent>) {
    super();
    this.init();
  }

  run(tool: Tool, call: ToolCall, context: ToolContext): void {
    // The context is the engine's, which finishes and cancels it: it is passed on, not owned.
    this.consume(tool, call, context, undefined);
  }

  cancelByUser(): void {
    if (this.phase === ENDED) return;
    const error = new CancelledError(CANCELLED_BY_USER);
    this.cancel(error);
    this.subscriber.error(error);
  }

  /** The engine unsubscribed the wrapper: the tool goes too, and its teardown's throw surfaces. */
  dispose(): void {
    this.cancel();
    if (!this.teardownThrew) return;
    this.teardownThrew = false;
    throw this.thrown;
  }

  protected onProgress(result: ToolResult): void {
    this.subscriber.next({ final: false, result });
  }

  protected onEnd(result: ToolResult | undefined, error: Error | undefined): void {
    if (error !== undefined) return this.subscriber.error(error);
    this.subscriber.next({ final: true, result: result as ToolResult });
    this.subscriber.complete();
  }

  protected onTeardownError(thrown: unknown): void {
    this.teardownThrew = true;
    // Thrown again from a teardown, it is wrapped again: unwrap it once here.
    this.thrown =
      thrown instanceof UnsubscriptionError && thrown.errors.length === 1
        ? thrown.errors[0]
        : thrown;
  }
}
