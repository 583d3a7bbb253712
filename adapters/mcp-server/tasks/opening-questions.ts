/**
 * A task tool's opening questions, asked in the request before its task is made (MCP
 * 2026-07-28: a multi round-trip, then the task). A call of a task tool from a client that
 * declared both the tasks extension and elicitation runs as a held call (held-calls.ts) for its
 * first turn: the questions it asks before it first waits on anything but its client (a
 * confirmation before the long part) are answered `input_required`, and its retries give them
 * their answers; as soon as a turn ends with no question open, the call becomes a task
 * (task-host.ts) and runs on as one, its later questions coming through the task. A proxied call
 * (a remote tool's, see task-relay.ts) becomes one when its server made it one, and only then:
 * until that, it is a held call whose end or questions answer the request. docs/mcp.md says what
 * a client sees.
 *
 * @module
 */
import type {
  CallToolResult,
  InputRequiredResult,
  ServerContext,
  ServerNotification,
} from '@modelcontextprotocol/server';
import { catchError, from, of, switchMap } from 'rxjs';
import type { ElicitResult, Elicitor } from '../../../lib/contract.js';
import type { RootsAsker } from '../../mcp-shared/relayed-roots.js';
import type { TaskRelay } from '../../mcp-shared/task-relay.js';
import type { HeldCall } from '../held/held-calls.js';
import type { StateSigning } from '../held/request-state.js';
import { failure } from '../served-call.js';
import type { RunningTask, WireTask } from './task-host.js';

/** The opening call a held call belongs to, when it does. */
const openings = new WeakMap<HeldCall, OpeningCall>();

/** The opening call `held` belongs to, if it is one (see {@link OpeningCall}). */
export function openingOf(held: HeldCall): OpeningCall | undefined {
  return openings.get(held);
}

/** A macrotask from now: the call's turn (its synchronous part and the promises it settles) is over. */
const turnEnded = (): Promise<void> =>
  new Promise((resolve) =>
    typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

/**
 * The parts a served call of a task tool speaks through while its opening questions are asked
 * (see the module): the held call's until the call becomes a task, the task's after.
 */
export class OpeningCall {
  private readonly controller = new AbortController();
  /** The served call's signal: the held call's cancellation, then the task's. */
  readonly signal = this.controller.signal;
  private task: RunningTask | undefined = undefined;
  private result: CallToolResult | undefined = undefined;
  private failure: Error | undefined = undefined;

  constructor(
    readonly held: HeldCall,
    /** Makes the call's task (in the store) once it goes on past its opening questions. */
    private readonly makeTask: () => Promise<{
      result: WireTask & { resultType: 'task' };
      task: RunningTask;
    }>,
    /** A remote tool's call: a task once its server made it one (see {@link relay}). */
    private readonly proxied = false,
  ) {
    openings.set(held, this);
    held.signal.addEventListener(
      'abort',
      () => {
        if (this.task === undefined) this.controller.abort(held.signal.reason);
      },
      { once: true },
    );
  }

  /** Whether the proxied call's server answered it with a task. */
  private upstreamTasked = false;

  /** A proxied call's word on tasks (task-relay.ts): its server's task makes it this server's. */
  readonly relay: TaskRelay = {
    declares: true,
    upstreamTask: () => {
      this.upstreamTasked = true;
      this.held.stir();
    },
  };

  /** A progress token for the served call: both speakers put in their own. */
  readonly progressToken = 'opening';

  /** The call's latest progress before its task was made: the task's first status message. */
  private progress: ServerNotification | undefined = undefined;

  readonly notify = (notification: ServerNotification): Promise<void> => {
    if (this.task !== undefined) return this.task.speaker.notify(notification);
    if (notification.method === 'notifications/progress') this.progress = notification;
    return this.held.notify(notification);
  };

  /** The task while it is being made (the store's write), after the call's first turn. */
  private making: Promise<RunningTask> | undefined = undefined;

  readonly elicitor: Elicitor = (request, call) => {
    if (this.task !== undefined) return this.task.speaker.elicitor(request, call);
    const making = this.making;
    if (making === undefined) return this.held.elicitor(request, call);
    // Asked while the task is being made: the request answers with the task, so the question is
    // the task's (the held call would keep it where no client looks). No task: the call stops.
    return from(making).pipe(
      switchMap((task) => task.speaker.elicitor(request, call)),
      catchError(() => of<ElicitResult>({ action: 'cancel' })),
    );
  };

  /**
   * A proxied call's asking of its client's roots (relayed-roots.ts): the held call's, while no
   * task speaks for it; a task asks for none (its server gets the roots the proxy offers).
   */
  readonly roots: RootsAsker = (key) =>
    this.task === undefined && this.making === undefined ? this.held.roots(key) : of(undefined);

  /** A proxied call's server logs: the held call's, while no task speaks for it. */
  readonly log = (params: Parameters<HeldCall['log']>[0]): Promise<void> =>
    this.task === undefined ? this.held.log(params) : Promise.resolve();

  /** The served call's upstream refusal: the request's answer, or a failed task's end. */
  refuse(refusal: Error): void {
    if (this.task === undefined && !this.upstreamTasked) this.held.refuse(refusal);
    else this.finish(failure(refusal));
  }

  readonly onFailure = (error: Error): void => {
    this.failure = error;
    this.task?.speaker.onFailure(error);
  };

  /** The served call's end. */
  finish(result: CallToolResult): void {
    if (this.task !== undefined) {
      this.task.finish(result);
      return;
    }
    this.result = result;
    this.held.finish(result);
  }

  /**
   * Answers the request `ctx` (the first, or a retry with answers): once the call's turn is over,
   * `input_required` while a question is open, else its task (`declared`: the client's request
   * declares the extension; a request that does not gets the call carried on as any held call).
   */
  async next(
    ctx: ServerContext,
    signing: StateSigning,
    declared: boolean,
  ): Promise<CallToolResult | InputRequiredResult | (WireTask & { resultType: 'task' })> {
    if (this.proxied) {
      if (this.task !== undefined || !declared) return this.held.answer(ctx, signing);
      const answered = await this.held.answerUntil(ctx, signing, () => this.upstreamTasked);
      if (answered !== undefined) return answered;
    } else {
      await turnEnded();
      if (this.task !== undefined || this.held.asking || !declared)
        return this.held.answer(ctx, signing);
    }
    return this.become();
  }

  /** The call goes on as a task: made in the store, it speaks for the call from now on. */
  private async become(): Promise<WireTask & { resultType: 'task' }> {
    this.held.release();
    let made: Awaited<ReturnType<OpeningCall['makeTask']>>;
    const making = this.makeTask();
    this.making = making.then(({ task }) => task);
    // Its failure is the request's (below); a question waiting on it is cancelled.
    this.making.catch(() => undefined);
    try {
      made = await making;
    } catch (err) {
      // No task could be made (the store is away): the call stops, and the request says why.
      this.controller.abort(err);
      throw err;
    }
    const { task } = made;
    this.task = task;
    task.speaker.signal.addEventListener(
      'abort',
      () => this.controller.abort(task.speaker.signal.reason),
      { once: true },
    );
    if (this.progress !== undefined) void task.speaker.notify(this.progress);
    if (this.failure !== undefined) task.speaker.onFailure(this.failure);
    if (this.result !== undefined) task.finish(this.result);
    return made.result;
  }

  /** The task the call became, once it did. */
  get running(): RunningTask | undefined {
    return this.task;
  }
}
