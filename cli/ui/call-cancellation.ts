/**
 * Cancelling one call of a running batch, which the engine itself does not offer (unsubscribing
 * or aborting its signal stops them all): each job's tool is wrapped so that its observable errors
 * with a CancelledError when that call is cancelled. The engine then reports it as it reports any
 * failure, with one final event, and unsubscribes from the tool, whose signal aborts (`bash` kills
 * its process group).
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';
import {
  CancelledError,
  ToolPanicError,
  type Job,
  type Tool,
  type ToolEvent,
} from '../../index.js';

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
    // Not merge(): the cancel watch must end when the tool's observable does, so that a tool that
    // completes without a final event still reaches the engine as a contract break.
    const execute: Tool['execute'] = (call, context) =>
      new Observable<ToolEvent>((subscriber) => {
        if (this.asked.has(index)) return subscriber.error(new CancelledError(CANCELLED_BY_USER));
        subscriber.add(
          this.requests.subscribe((i) => {
            if (i === index) subscriber.error(new CancelledError(CANCELLED_BY_USER));
          }),
        );
        let events: Observable<ToolEvent>;
        try {
          events = tool.execute(call, context);
        } catch (err) {
          return subscriber.error(new ToolPanicError(tool.name, err));
        }
        subscriber.add(events.subscribe(subscriber));
      });
    return Object.create(tool, { execute: { value: execute, enumerable: true } }) as Tool;
  }
}
