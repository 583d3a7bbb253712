/**
 * One task this instance runs (task-host.ts makes it): what its call says through it (progress,
 * questions), the answers and cancellations that reach it through the store's messages, its lease
 * renewed while it runs, and its final view written once the call ends. docs/mcp.md says what a
 * client sees.
 *
 * @module
 */
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/server';
import type { Observable, Subscription } from 'rxjs';
import type { ElicitResult, Elicitor } from '../../../lib/contract.js';
import { CancelledError, oneLine, ToolPanicError } from '../../../lib/errors.js';
import { McpCallError } from '../../mcp-shared/mcp-errors.js';
import type { ElicitationModes } from '../client-elicitor.js';
import { OpenQuestions } from '../open-questions.js';
import type { TaskHost } from './task-host.js';
import type { StoredTask, TaskMessage } from './task-store.js';
import type { Settings } from './task-wire.js';

/** What a task's call is run with: the parts of a served call that speak for it. */
export interface TaskSpeaker {
  readonly signal: AbortSignal;
  readonly progressToken: string;
  readonly notify: (notification: ServerNotification) => Promise<void>;
  /** Asks through the task: an Observable answer, unsubscribed when the call ends first. */
  readonly elicitor: (...question: Parameters<Elicitor>) => Observable<ElicitResult>;
  /** Told of the error a failed call ended with, before its result is mapped. */
  readonly onFailure: (error: Error) => void;
}

/**
 * The JSON-RPC error a remote tool's server ended its call with (`code`), as that server gave it:
 * its task's error (`taskError`, see remote-task.ts), or the error it answered with, without the
 * SDK's `MCP error <code>: ` before its message. A proxy's task fails with it unchanged.
 */
function upstreamErrorOf(
  failure: McpCallError,
  code: number,
): { code: number; message: string; data?: unknown } {
  const cause = (failure.cause ?? {}) as { taskError?: unknown; message?: unknown; data?: unknown };
  const given = cause.taskError as
    { code?: unknown; message?: unknown; data?: unknown } | undefined;
  if (typeof given?.code === 'number' && typeof given.message === 'string')
    return given.data === undefined
      ? { code: given.code, message: given.message }
      : { code: given.code, message: given.message, data: given.data };
  const message =
    typeof cause.message === 'string'
      ? cause.message.replace(/^MCP error -?\d+: /, '')
      : failure.message;
  return cause.data === undefined ? { code, message } : { code, message, data: cause.data };
}

/** One task this instance runs. */
export class RunningTask {
  readonly controller = new AbortController();
  /** The call's questions, shown in the task's status; answers come through the store. */
  private readonly questions: OpenQuestions;
  private failure: Error | undefined = undefined;
  /** Why the server stopped the call (lease lost, TTL, shutdown), when it did; a cancel otherwise. */
  private stopped: { readonly why: string; readonly failed: boolean } | undefined = undefined;
  private flushing = false;
  private dirty = false;
  private final = false;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private messages: Subscription | undefined = undefined;
  /** Until when the store's faults are not reported again (one line per 10 s per task). */
  private quietUntil = 0;
  private ended!: () => void;
  /** Settles once the task's final view is written (or could not be, and was reported). */
  readonly done = new Promise<void>((resolve) => (this.ended = resolve));

  constructor(
    private readonly host: TaskHost,
    public view: StoredTask,
    private readonly settings: Settings,
    modes: ElicitationModes,
    token: string | undefined,
  ) {
    // Keys are unique over the task's life (the extension's rule).
    const changed = (): void => this.showQuestions();
    this.questions = new OpenQuestions({ modes, token, keys: 'once', changed });
  }

  /** The parts of the served call that speak for this task. */
  readonly speaker: TaskSpeaker = {
    signal: this.controller.signal,
    progressToken: 'task',
    notify: (notification) => {
      if (notification.method === 'notifications/progress') {
        const { progress, total, message } = notification.params;
        const said = message ?? (total === undefined ? `${progress}` : `${progress} of ${total}`);
        this.change({ statusMessage: said });
      }
      return Promise.resolve();
    },
    elicitor: (request) => this.questions.elicit(request),
    onFailure: (error) => {
      this.failure = error;
    },
  };

  /** Starts listening for messages and renewing the lease; arms the TTL's end. */
  begin(): void {
    const { store } = this.host;
    this.messages = store.messages(this.view.taskId).subscribe({
      next: (message) => this.receive(message),
      error: (err: unknown) => this.fault(`listening to task ${this.view.taskId}`, err),
    });
    const renew = setInterval(
      () => {
        store.renew(this.view.taskId, this.view.owner, this.settings.leaseMs).then(
          (held) => {
            if (!held && !this.final) this.stop('the task was ended elsewhere (its lease lapsed)');
          },
          (err: unknown) => this.fault(`renewing task ${this.view.taskId}`, err),
        );
        // A write the store refused is tried again.
        if (this.dirty && !this.flushing) this.flush();
      },
      Math.max(1, Math.floor(this.settings.leaseMs / 3)),
    );
    renew.unref?.();
    this.timers.push(renew);
    if (this.view.ttlMs !== null) {
      const end = setTimeout(
        () => this.stop(`the task ran past its ttlMs (${this.view.ttlMs} ms)`),
        this.view.createdAt + this.view.ttlMs - Date.now(),
      );
      end.unref?.();
      this.timers.push(end);
    }
  }

  /** Reports a fault of the store's, but not again for 10 s: an outage is one line, not a flood. */
  private fault(what: string, err: unknown): void {
    const now = Date.now();
    if (now < this.quietUntil) return;
    this.quietUntil = now + 10_000;
    this.host.fault(what, err);
  }

  /** A message from wherever the client's request landed. */
  receive(message: TaskMessage): void {
    if (message.kind === 'cancel') {
      if (!this.controller.signal.aborted)
        this.controller.abort(new CancelledError('task cancelled by the client'));
      return;
    }
    // Keys not open now (never issued, answered already) are ignored, as the extension says.
    this.questions.deliver(message.inputResponses);
    this.showQuestions();
  }

  /**
   * The server stops the call (`why`): it ends `cancelled`, saying why, or `failed` (an internal
   * error, -32603) when `failed`: the client did not ask for it.
   */
  stop(why: string, failed = false): void {
    if (this.controller.signal.aborted) return;
    this.stopped = { why, failed };
    this.controller.abort(new CancelledError(why));
  }

  private showQuestions(): void {
    if (this.final) return;
    if (this.questions.size === 0) {
      if (this.view.status === 'input_required')
        this.change({ status: 'working', inputRequests: undefined });
      return;
    }
    this.change({ status: 'input_required', inputRequests: this.questions.requests() });
  }

  /**
   * Changes the task's view; written to the store one write at a time, the latest winning. `last`:
   * the final view, after which nothing changes.
   */
  change(next: Partial<StoredTask>, last = false): void {
    if (this.final) return;
    if (last) this.final = true;
    const view: Record<string, unknown> = { ...this.view, ...next, lastUpdatedAt: Date.now() };
    for (const key of Object.keys(view)) if (view[key] === undefined) delete view[key];
    this.view = view as unknown as StoredTask;
    this.dirty = true;
    if (!this.flushing) this.flush();
  }

  /** The call ended with `result`: the task's final view. */
  finish(result: CallToolResult): void {
    const failure = this.failure;
    let next: Partial<StoredTask>;
    const stopped = this.stopped;
    if (stopped?.failed === true) {
      next = {
        status: 'failed',
        statusMessage: stopped.why,
        error: { code: -32603, message: stopped.why },
      };
    } else if (this.controller.signal.aborted) {
      next = { status: 'cancelled', statusMessage: stopped?.why ?? 'cancelled by the client' };
    } else if (failure instanceof ToolPanicError) {
      // A tool that broke its contract is the server's fault, not an answer for the model.
      next = { status: 'failed', error: { code: -32603, message: failure.message } };
      next = { ...next, statusMessage: failure.message };
    } else if (failure instanceof McpCallError && failure.rpcCode !== undefined) {
      // A proxied tool whose server answered with a JSON-RPC error, or whose task failed with one.
      const error = upstreamErrorOf(failure, failure.rpcCode);
      next = { status: 'failed', statusMessage: oneLine(error.message), error };
    } else {
      next = { status: 'completed', result: result as unknown as Record<string, unknown> };
    }
    this.change({ ...next, inputRequests: undefined }, true);
  }

  private flush(): void {
    this.flushing = true;
    this.dirty = false;
    const written = this.view;
    const last = this.final;
    this.host.store.put(written).then(
      (wrote) => {
        this.flushing = false;
        if (!wrote) {
          // Final already (failed elsewhere: its lease lapsed) or gone (past its TTL): the call
          // stops, and nothing more is written.
          this.stop('the task was ended elsewhere');
          this.close();
          return;
        }
        if (this.dirty) this.flush();
        else if (last) this.close();
      },
      (err: unknown) => {
        this.flushing = false;
        this.dirty = true;
        this.fault(`writing task ${written.taskId}`, err);
        // Tried again at the next lease renewal, while the lease runs.
      },
    );
  }

  /** The admission slots the task's call holds while it runs (see `keepSlot`). */
  private readonly slots: (() => void)[] = [];
  private closed = false;

  /**
   * Keeps the admission slot of the request that made the task (see `maxConcurrentCalls`) until
   * the task ends: its call runs on past that request, and counts against the bound as long as it
   * does. Given back at once when the task has ended already.
   */
  keepSlot(release: () => void): void {
    if (this.closed) release();
    else this.slots.push(release);
  }

  private close(): void {
    this.closed = true;
    for (const release of this.slots.splice(0)) release();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.length = 0;
    this.messages?.unsubscribe();
    this.host.forget(this);
    this.ended();
  }
}
