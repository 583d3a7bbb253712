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
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describeThrown, ToolPanicError } from '../../../lib/errors.js';
import type { ElicitationModes } from '../client-elicitor.js';
import { RunningTask, type TaskSpeaker } from './running-task.js';
import { damagedTask, readStoredTask, storedTaskProblem } from './stored-task-check.js';
import { isTerminal, type StoredTask, type TaskMessage, type TaskStore } from './task-store.js';
import { rpcError, settingsOf, wireTask, type TaskOptions, type WireTask } from './task-wire.js';

import { TASKS_EXTENSION } from '../../mcp-shared/tasks-extension.js';

export { TASKS_EXTENSION };
export { RunningTask, type TaskSpeaker } from './running-task.js';
export {
  checkTaskOptions,
  declaresTasks,
  rpcError,
  TASK_DEFAULTS,
  wireTask,
  type TaskOptions,
  type WireTask,
} from './task-wire.js';

/** The message a task whose instance is gone is failed with. */
export const ABANDONED =
  'the server instance running this task stopped before it finished (its lease lapsed): call the tool again';

/** The message a task is failed with when its instance shuts down before it ends. */
export const SHUT_DOWN =
  'the server instance running this task shut down before it finished: call the tool again';

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
