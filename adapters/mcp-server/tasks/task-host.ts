/**
 * Served calls as tasks of MCP's tasks extension (`io.modelcontextprotocol/tasks`): the instance
 * that receives a call creates its task in the store, runs it, and writes what becomes of it;
 * any instance sharing the store answers `tasks/get`, `tasks/update` and `tasks/cancel`, and an
 * answer or a cancellation reaches the running call through the store's messages. The running
 * instance holds a lease on each task it runs and renews it; a task whose lease lapsed has lost
 * its instance, and the next reader reports it `failed`. docs/mcp.md says what a client sees.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ServerNotification,
} from '@modelcontextprotocol/server';
import { Observable, type Subscription } from 'rxjs';
import type { ElicitResult, Elicitor } from '../../../lib/contract.js';
import { CancelledError, describeThrown, oneLine, ToolPanicError } from '../../../lib/errors.js';
import { McpCallError } from '../../mcp-shared/mcp-errors.js';
import { CALL_TOKEN } from '../../mcp-shared/call-token.js';
import { elicitParams, mayAsk, type ElicitationModes } from '../client-elicitor.js';
import { answerOf } from '../held/held-calls.js';
import { damagedTask, readStoredTask, storedTaskProblem } from './stored-task-check.js';
import { isTerminal, type StoredTask, type TaskMessage, type TaskStore } from './task-store.js';

import { TASKS_EXTENSION } from '../../mcp-shared/tasks-extension.js';

export { TASKS_EXTENSION };

/** Options of `createMcpServer`'s `tasks`: where tasks live, and how long they last. */
export interface TaskOptions {
  /** Where tasks live: `memoryTaskStore()`, or `redisTaskStore(url)` shared by instances. */
  store: TaskStore;
  /**
   * How long (ms) a task is kept from its creation, its result included (default 1 hour); null
   * for as long as the store keeps it. A task still running at its end is cancelled: its result
   * would have nowhere to go.
   */
  ttlMs?: number | null | undefined;
  /** How often (ms) a client is asked to poll `tasks/get` (default 1 s). */
  pollIntervalMs?: number | undefined;
  /**
   * How long (ms) a task stays vouched for by its instance without a renewal (default 10 s;
   * renewed every third of it): an instance that dies leaves its tasks to be reported `failed`
   * within this time.
   */
  leaseMs?: number | undefined;
}

/** The defaults of {@link TaskOptions}. */
export const TASK_DEFAULTS: Readonly<{
  /** {@link TaskOptions.ttlMs}: an hour. */
  ttlMs: number;
  /** {@link TaskOptions.pollIntervalMs}: a second. */
  pollIntervalMs: number;
  /** {@link TaskOptions.leaseMs}: 10 s. */
  leaseMs: number;
}> = Object.freeze({ ttlMs: 60 * 60_000, pollIntervalMs: 1_000, leaseMs: 10_000 });

/** A task on the wire (the extension's `Task`, with what `tasks/get` inlines for its status). */
export interface WireTask {
  taskId: string;
  status: StoredTask['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The wire form of `task`: ISO times, and only the payload its status carries. */
export function wireTask(task: StoredTask): WireTask {
  const wire: WireTask = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) wire.pollIntervalMs = task.pollIntervalMs;
  if (task.status === 'input_required') wire.inputRequests = { ...task.inputRequests };
  // The call's result as MCP 2026-07-28 answers a tools/call, `resultType` and all: the
  // extension's clients read it as one (`@modelcontextprotocol/ext-tasks` refuses it without).
  if (task.status === 'completed') wire.result = { ...task.result, resultType: 'complete' };
  if (task.status === 'failed')
    wire.error = task.error ?? { code: -32603, message: task.statusMessage ?? 'task failed' };
  return wire;
}

/** A JSON-RPC error of `code`, as the SDK sends a thrown one. */
export function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

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

/** What a task's settings are, resolved from {@link TaskOptions}. */
interface Settings {
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
}

function settingsOf(options: TaskOptions): Settings {
  const ttlMs = options.ttlMs === undefined ? TASK_DEFAULTS.ttlMs : options.ttlMs;
  const pollIntervalMs = options.pollIntervalMs ?? TASK_DEFAULTS.pollIntervalMs;
  const leaseMs = options.leaseMs ?? TASK_DEFAULTS.leaseMs;
  const whole = (name: string, value: number): void => {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`tasks.${name} must be a positive whole number of ms, got ${value}`);
  };
  if (ttlMs !== null) whole('ttlMs', ttlMs);
  whole('pollIntervalMs', pollIntervalMs);
  whole('leaseMs', leaseMs);
  return { ttlMs, pollIntervalMs, leaseMs };
}

/** The message a task whose instance is gone is failed with. */
export const ABANDONED =
  'the server instance running this task stopped before it finished (its lease lapsed): call the tool again';

/** The message a task is failed with when its instance shuts down before it ends. */
export const SHUT_DOWN =
  'the server instance running this task shut down before it finished: call the tool again';

/** One task this instance runs. */
export class RunningTask {
  readonly controller = new AbortController();
  private readonly open = new Map<
    string,
    {
      readonly params: ElicitRequestFormParams | ElicitRequestURLParams;
      answer(r: ElicitResult): void;
    }
  >();
  private readonly used = new Set<string>();
  private asked = 0;
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
    private readonly modes: ElicitationModes,
    private readonly token: string | undefined,
  ) {}

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
    elicitor: (request) =>
      new Observable<ElicitResult>((subscriber) => {
        if (!mayAsk(this.modes, request)) {
          subscriber.next({ action: 'decline' });
          subscriber.complete();
          return;
        }
        // Keys are unique over the task's life (the extension's rule): a key once used is never
        // used again, even by the tool.
        let key = request.key;
        while (key === undefined || this.used.has(key)) key = `q${++this.asked}`;
        this.used.add(key);
        this.open.set(key, {
          params: {
            ...elicitParams(request, undefined),
            ...(this.token === undefined ? {} : { _meta: { [CALL_TOKEN]: this.token } }),
          },
          answer: (result) => {
            subscriber.next(result);
            subscriber.complete();
          },
        });
        this.showQuestions();
        return () => {
          if (this.open.delete(key)) this.showQuestions();
        };
      }),
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
    for (const [key, response] of Object.entries(message.inputResponses)) {
      // Keys not open now (never issued, answered already) are ignored, as the extension says.
      const question = this.open.get(key);
      if (question === undefined) continue;
      this.open.delete(key);
      question.answer(answerOf(response));
    }
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
    if (this.open.size === 0) {
      if (this.view.status === 'input_required')
        this.change({ status: 'working', inputRequests: undefined });
      return;
    }
    const inputRequests: Record<string, unknown> = {};
    for (const [key, question] of this.open)
      inputRequests[key] = { method: 'elicitation/create', params: question.params };
    this.change({ status: 'input_required', inputRequests });
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
      // A proxied tool whose server answered with a JSON-RPC error.
      const message = oneLine(failure.message);
      next = {
        status: 'failed',
        statusMessage: message,
        error: { code: failure.rpcCode, message },
      };
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

/**
 * The tasks of one store, as this process serves them: one per store, shared by every server made
 * with it (MCP 2026-07-28 makes a server per request).
 */
export class TaskHost {
  /** This instance's id, the owner of the tasks it runs. */
  readonly owner = randomUUID();
  private readonly running = new Map<string, RunningTask>();

  constructor(
    readonly store: TaskStore,
    private readonly report: (error: Error) => void,
  ) {}

  /** Reports a fault of the store's that belongs to no request (a write, a renewal, a listener). */
  fault(what: string, err: unknown): void {
    this.report(new Error(`mcp server: tasks: ${what}: ${describeThrown(err)}`));
  }

  /** How many tasks this instance runs now. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Creates a task for a call of `tool` and starts it with `run`; resolves with the
   * CreateTaskResult once the task is in the store (so `tasks/get` finds it from any instance).
   */
  async start(
    tool: string,
    options: TaskOptions,
    modes: ElicitationModes,
    token: string | undefined,
    run: (speaker: TaskSpeaker) => CallToolResult | Promise<CallToolResult>,
  ): Promise<{ result: WireTask & { resultType: 'task' }; task: RunningTask }> {
    const made = await this.create(tool, options, modes, token);
    const { task } = made;
    void Promise.resolve()
      .then(() => run(task.speaker))
      .then(
        (result) => task.finish(result),
        (err: unknown) => {
          task.speaker.onFailure(new ToolPanicError(tool, err));
          task.finish({ content: [], isError: true });
        },
      );
    return made;
  }

  /**
   * Creates a task for a call of `tool` that runs already, or is about to: its speaker is the
   * task's `speaker`, and its end is given to `finish`. Resolves once the task is in the store.
   */
  async create(
    tool: string,
    options: TaskOptions,
    modes: ElicitationModes,
    token: string | undefined,
  ): Promise<{ result: WireTask & { resultType: 'task' }; task: RunningTask }> {
    const settings = settingsOf(options);
    const now = Date.now();
    const view: StoredTask = {
      taskId: randomUUID(),
      tool,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: settings.ttlMs,
      pollIntervalMs: settings.pollIntervalMs,
      owner: this.owner,
    };
    await this.store.create(view, settings.leaseMs);
    const task = new RunningTask(this, view, settings, modes, token);
    this.running.set(view.taskId, task);
    task.begin();
    return { result: { resultType: 'task', ...wireTask(view) }, task };
  }

  /** Forgets a task that has ended here. */
  forget(task: RunningTask): void {
    if (this.running.get(task.view.taskId) === task) this.running.delete(task.view.taskId);
  }

  /** The task `taskId` now, from this instance's own view or the store's; -32602 when unknown. */
  async get(taskId: string): Promise<StoredTask> {
    // An id this server never makes is not looked up (nor sent to Redis as a key).
    if (!TASK_ID.test(taskId)) throw unknownTask(taskId);
    const own = this.running.get(taskId);
    if (own !== undefined) return own.view;
    const found = await this.store.get(taskId);
    if (found === undefined) throw unknownTask(taskId);
    // Whatever wrote the record (another instance, anything else with the same Redis), it reads as
    // a task: a damaged one as failed, saying which field is wrong (stored-task-check.ts).
    const problem = storedTaskProblem(taskId, found.task);
    if (problem !== undefined) return damagedTask(taskId, problem, found.task);
    if (found.leased || isTerminal(found.task.status)) return found.task;
    // Its instance is gone: the task will never finish. Reported failed, once.
    const failed: StoredTask = {
      ...withoutPayload(found.task),
      status: 'failed',
      statusMessage: ABANDONED,
      lastUpdatedAt: Date.now(),
      error: { code: -32603, message: ABANDONED },
    };
    if (await this.store.abandon(failed)) return failed;
    const again = await this.store.get(taskId);
    if (again === undefined) throw unknownTask(taskId);
    return readStoredTask(taskId, again.task);
  }

  /** Delivers answers to the task's open questions, wherever it runs. */
  async update(taskId: string, inputResponses: Readonly<Record<string, unknown>>): Promise<void> {
    const message: TaskMessage = { kind: 'answers', inputResponses };
    const own = this.running.get(taskId);
    if (own !== undefined) return own.receive(message);
    const task = await this.get(taskId);
    if (isTerminal(task.status)) return;
    await this.store.send(taskId, message);
  }

  /** Cancels the task, wherever it runs; a final task stays as it is. */
  async cancel(taskId: string): Promise<void> {
    const message: TaskMessage = { kind: 'cancel' };
    const own = this.running.get(taskId);
    if (own !== undefined) return own.receive(message);
    const task = await this.get(taskId);
    if (isTerminal(task.status)) return;
    await this.store.send(taskId, message);
  }

  /** Resolves once every task this instance runs now has ended and been written. */
  async settled(): Promise<void> {
    await Promise.all([...this.running.values()].map((task) => task.done));
  }

  /**
   * Stops every task this instance runs, failing them (-32603, {@link SHUT_DOWN}), and resolves
   * once they are written: for a server that shuts down.
   */
  async stopAll(): Promise<void> {
    for (const task of this.running.values()) task.stop(SHUT_DOWN, true);
    // A store that cannot be reached does not hold the shutdown: the tasks' leases lapse instead,
    // and another instance reports them failed.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.settled(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000))),
    ]);
    clearTimeout(timer);
  }
}

function withoutPayload(task: StoredTask): StoredTask {
  const copy: Record<string, unknown> = { ...task };
  delete copy.inputRequests;
  delete copy.result;
  delete copy.error;
  return copy as unknown as StoredTask;
}

/** What a task id this server makes looks like (a UUID): anything else is no task of its. */
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

function unknownTask(taskId: string): Error {
  const named = TASK_ID.test(taskId)
    ? JSON.stringify(taskId)
    : `(an id of ${taskId.length} characters)`;
  return rpcError(-32602, `unknown task ${named}: never created here, or past its ttlMs`);
}

const hosts = new WeakMap<TaskStore, TaskHost>();

/** The host of `store`'s tasks in this process, made on first use. */
export function taskHostOf(store: TaskStore, report: (error: Error) => void): TaskHost {
  let host = hosts.get(store);
  if (host === undefined) hosts.set(store, (host = new TaskHost(store, report)));
  return host;
}

/** The host of `store`'s tasks in this process, if a server has used it. */
export function existingTaskHost(store: TaskStore): TaskHost | undefined {
  return hosts.get(store);
}

/** Checks `options` now, so that a bad one fails when the server is made. */
export function checkTaskOptions(options: TaskOptions): void {
  if (typeof options !== 'object' || options === null || typeof options.store !== 'object')
    throw new TypeError('tasks must be { store, ttlMs?, pollIntervalMs?, leaseMs? }');
  settingsOf(options);
}

/** Whether `capabilities` (a request's client capabilities) declare the tasks extension. */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const own = (extensions as Record<string, unknown>)[TASKS_EXTENSION];
  return typeof own === 'object' && own !== null;
}
