/**
 * A remote call the server answered with a task: polled until it ends, in either generation of
 * MCP tasks behind one interface: the tasks extension of MCP 2026-07-28 (`tasks/get` inlines the
 * result, questions come as `inputRequests` answered with `tasks/update`) and the tasks of MCP
 * 2025-11-25 (a `tools/call` sent with `task`, then `tasks/get` and `tasks/result`). What the
 * server sends is checked field by field against the official wire types (see task-wire.ts). The
 * server's side is tested against those schemas.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '../../lib/contract.js';
import { describeThrown, oneLine } from '../../lib/errors.js';
import { questionOf, readTask, type Snapshot } from './task-wire.js';

/** Which MCP tasks a connection speaks: 2025-11-25's (`v1`) or the 2026-07-28 extension's (`v2`). */
export type TaskGeneration = 'v1' | 'v2';

export { TASKS_EXTENSION } from '../mcp-shared/tasks-extension.js';

/**
 * The `_meta` key under which the transport hands a tools/call's task result to its call: the
 * SDK's client takes a `tools/call` result to be a CallToolResult, and refuses a task.
 */
export const TASK_RESULT = 'io.agenttool/task-result';

/** The record a remote task's call makes (see {@link TaskRecord}). */
export const TASK_RECORD_NS = 'mcp:task';

/**
 * What a call records when its server answers with a task, through the job's recorder: enough for
 * a later run (`resume`) to poll the same task rather than call the tool again.
 */
export interface TaskRecord {
  /** The server's name, as it gave it. */
  readonly server: string;
  /** The tool's name on its server. */
  readonly tool: string;
  readonly taskId: string;
  readonly generation: TaskGeneration;
}

/** The task of a result `message` carries when it is one (either generation), for the transport. */
export function isTaskResult(result: unknown): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const r = result as { resultType?: unknown; task?: unknown; content?: unknown };
  return r.resultType === 'task' || (typeof r.task === 'object' && r.content === undefined);
}

/** The task `records` (a call's, from an earlier run) name on `server` for `tool`, the last one. */
export function recordedTask(
  records: readonly { readonly ns: string; readonly data: string }[],
  server: string,
  tool: string,
): TaskRecord | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.ns !== TASK_RECORD_NS) continue;
    let data: unknown;
    try {
      data = JSON.parse(record.data);
    } catch {
      continue;
    }
    const r = (data ?? {}) as Partial<TaskRecord>;
    if (
      r.server === server &&
      r.tool === tool &&
      typeof r.taskId === 'string' &&
      (r.generation === 'v1' || r.generation === 'v2')
    )
      return r as TaskRecord;
  }
  return undefined;
}

/** The task a call's result was turned into by the transport, read; undefined for a plain result. */
export function createdTask(
  result: CallToolResult,
): { generation: TaskGeneration; task: Snapshot } | { problem: string } | undefined {
  const raw = (result._meta as Record<string, unknown> | undefined)?.[TASK_RESULT];
  if (raw === undefined) return undefined;
  const r = raw as Record<string, unknown>;
  if (r.resultType === 'task') {
    const task = readTask(r, 'v2');
    return typeof task === 'string'
      ? { problem: `the server answered with a task that is not one: ${task}` }
      : { generation: 'v2', task };
  }
  const task = readTask(r.task, 'v1');
  return typeof task === 'string'
    ? { problem: `the server answered with a task that is not one: ${task}` }
    : { generation: 'v1', task };
}

/** MCP 2025-11-25's `_meta` key naming the task a message belongs to. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * A 2025-11-25 task's result without the `_meta` naming the task: the result is the call's, and
 * the task's id is its server's (a proxy serving the call as its own task has its own id).
 */
function withoutRelatedTask(result: CallToolResult): CallToolResult {
  const meta = result?._meta as Record<string, unknown> | undefined;
  if (meta === undefined || !(RELATED_TASK in meta)) return result;
  const { [RELATED_TASK]: _task, ...rest } = meta;
  const { _meta, ...bare } = result;
  return Object.keys(rest).length === 0 ? bare : { ...bare, _meta: rest };
}

/** What a polled task reports to its call. */
export interface TaskListener {
  /** The task's status message changed (its progress). */
  progress(message: string, status: Snapshot['status']): void;
  /** A question of the task's, asked through the call; undefined when the call has ended. */
  elicit(question: ElicitRequest): Promise<ElicitResult> | undefined;
  /** The task completed: its result (an `isError` one included). */
  completed(result: CallToolResult): void;
  /** The task failed (a JSON-RPC error), was cancelled by its server, or could not be polled. */
  failed(error: Error): void;
}

/**
 * How often a task is polled: at once, then after `first` ms, each wait twice the last, until the
 * waits reach the server's `pollIntervalMs` (`default` when it suggests nothing, its suggestion
 * held within `min` and `max`), which they then stay at.
 */
export const POLL = Object.freeze({ first: 2, default: 1_000, min: 10, max: 30_000 });

/**
 * The wait (ms) before poll `n` of a task (0 the first, sent as soon as the task is made): 0, then
 * 2, 4, 8, 16… ms (`POLL.first` doubled), never past the server's suggestion `suggested` (held
 * within `POLL.min` and `POLL.max`; `POLL.default` when there is none). A task that ends in a few
 * ms is seen ended a few ms later, and a long one is polled as its server asks within a few polls.
 */
export function pollDelay(n: number, suggested: number | undefined): number {
  const ceiling = Math.min(POLL.max, Math.max(POLL.min, suggested ?? POLL.default));
  if (n <= 0) return 0;
  return Math.min(ceiling, POLL.first * 2 ** Math.min(n - 1, 30));
}

/** The timers a task's polls are scheduled on (the global ones; a test's virtual clock). */
export interface PollTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const GLOBAL_TIMERS: PollTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Polls after this many failed polls in a row give up. */
const MAX_POLL_FAILURES = 3;

/** An answer as MCP sends it: an accept of a URL question carries no content. */
function wireAnswer(answer: ElicitResult, url: boolean): Record<string, unknown> {
  if (answer.action !== 'accept') return { action: answer.action };
  return url ? { action: 'accept' } : { action: 'accept', content: { ...answer.content } };
}

/**
 * One task polled until it ends: its status message as progress, its questions (2026-07-28) asked
 * through the call and answered with `tasks/update`, its end as the call's. `cancel()` stops
 * polling and sends `tasks/cancel`.
 */
export class RemoteTask {
  private stopped = false;
  private timer: unknown = undefined;
  /** Polls scheduled so far (see {@link pollDelay}). */
  private polls = 0;
  /** The server's last suggested interval (`pollIntervalMs`). */
  private suggested: number | undefined = undefined;
  private said: string | undefined = undefined;
  /** Question keys asked already: each is asked once over the task's life. */
  private readonly asked = new Set<string>();
  private failures = 0;

  constructor(
    private readonly request: (method: string, params: Record<string, unknown>) => Promise<unknown>,
    readonly generation: TaskGeneration,
    readonly taskId: string,
    private readonly listener: TaskListener,
    private readonly timers: PollTimers = GLOBAL_TIMERS,
  ) {}

  /** Starts polling from `first` (the task as created): its first poll is sent at once. */
  start(first?: Snapshot): void {
    if (first !== undefined) this.see(first);
    else this.later(undefined);
  }

  /** Stops polling and cancels the task on its server (best effort: its failure is dropped). */
  cancel(): void {
    if (this.stopped) return;
    this.stop();
    this.request('tasks/cancel', { taskId: this.taskId }).catch(() => undefined);
  }

  /** Stops polling, leaving the task be (its call ended otherwise: the connection closed). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The next poll, after its wait ({@link pollDelay}; `suggested` the server's interval). */
  private later(suggested: number | undefined): void {
    if (this.stopped) return;
    if (suggested !== undefined) this.suggested = suggested;
    const wait = pollDelay(this.polls++, this.suggested);
    if (wait === 0) return this.poll();
    this.timer = this.timers.setTimeout(() => this.poll(), wait);
  }

  /** A poll again after one that failed on the way: after the server's whole interval. */
  private retry(): void {
    if (this.stopped) return;
    const wait = pollDelay(Number.MAX_SAFE_INTEGER, this.suggested);
    this.timer = this.timers.setTimeout(() => this.poll(), wait);
  }

  private poll(): void {
    if (this.stopped) return;
    this.timer = undefined;
    this.request('tasks/get', { taskId: this.taskId }).then(
      (raw) => {
        if (this.stopped) return;
        const snapshot = this.read(raw);
        if (snapshot === undefined) return;
        this.failures = 0;
        this.see(snapshot);
      },
      (err: unknown) => {
        if (this.stopped) return;
        // A poll the server refused (an unknown task: past its TTL) ends the call; one that
        // failed on the way (the connection blinked) is tried again, a few times.
        const refused = typeof (err as { code?: unknown } | null)?.code === 'number';
        if (!refused && ++this.failures < MAX_POLL_FAILURES) return this.retry();
        this.end(new Error(`polling task ${this.taskId} failed: ${describeThrown(err)}`));
      },
    );
  }

  /** A tasks/get result, read; undefined (and the call failed) when it is not a task. */
  private read(raw: unknown): Snapshot | undefined {
    const task = readTask(raw, this.generation);
    if (typeof task !== 'string') return task;
    this.end(new Error(`tasks/get answered with a task that is not one: ${task}`));
    return undefined;
  }

  private see(task: Snapshot): void {
    if (task.statusMessage !== undefined && task.statusMessage !== this.said) {
      this.said = task.statusMessage;
      this.listener.progress(task.statusMessage, task.status);
    }
    switch (task.status) {
      case 'completed':
        if (this.generation === 'v2') {
          this.stop();
          this.listener.completed(task.result as CallToolResult);
        } else this.fetchResult();
        return;
      case 'failed':
        if (this.generation === 'v2') {
          // A JSON-RPC error: its code kept (McpCallError's rpcCode), and the error as the server
          // gave it (`taskError`), which a proxy's own task fails with.
          const error = task.error ?? { code: -32603, message: task.statusMessage ?? 'failed' };
          this.end(
            Object.assign(new Error(`the task failed: ${oneLine(error.message)}`), {
              code: error.code,
              taskError: error,
            }),
          );
        } else this.fetchResult();
        return;
      case 'cancelled':
        this.end(
          new Error(
            `the server cancelled the task${task.statusMessage === undefined ? '' : `: ${task.statusMessage}`}`,
          ),
        );
        return;
      case 'input_required':
        if (this.generation === 'v2') this.answer(task.inputRequests ?? {});
        // 2025-11-25: the server asks over tasks/result, which waits for the task's end.
        else return this.fetchResult();
        break;
      default:
        break;
    }
    this.later(task.pollIntervalMs);
  }

  /** 2025-11-25: the task's payload (`tasks/result`), which waits until the task ends. */
  private fetchResult(): void {
    this.stop();
    this.request('tasks/result', { taskId: this.taskId }).then(
      (result) => this.listener.completed(withoutRelatedTask(result as CallToolResult)),
      (err: unknown) => this.listener.failed(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** Asks each question not asked yet, and sends each answer as it comes. */
  private answer(requests: Readonly<Record<string, unknown>>): void {
    for (const [key, request] of Object.entries(requests)) {
      if (this.asked.has(key)) continue;
      this.asked.add(key);
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
      if (method !== 'elicitation/create') {
        this.cancel();
        this.listener.failed(
          new Error(
            `the task asked for ${JSON.stringify(method)}, which this client does not answer`,
          ),
        );
        return;
      }
      const read = questionOf(params);
      // Asked under the server's own key, so a proxy asks its client under it too.
      if (!('problem' in read)) read.question = { ...read.question, key };
      const answered: Promise<Record<string, unknown>> =
        'problem' in read
          ? Promise.resolve({ action: 'decline' })
          : (
              this.listener.elicit(read.question) ?? Promise.resolve({ action: 'cancel' as const })
            ).then(
              (answer) => wireAnswer(answer, read.question.mode === 'url'),
              () => ({ action: 'cancel' }),
            );
      void answered.then((response) => {
        if (this.stopped) return;
        this.request('tasks/update', {
          taskId: this.taskId,
          inputResponses: { [key]: response },
        }).catch((err: unknown) =>
          this.end(new Error(`answering task ${this.taskId} failed: ${describeThrown(err)}`)),
        );
      });
    }
  }

  private end(error: Error): void {
    this.stop();
    this.listener.failed(error);
  }
}
