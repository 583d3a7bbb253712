/**
 * Where the tasks of MCP's tasks extension (`io.modelcontextprotocol/tasks`) live: a store of task
 * records that every instance serving the same tools shares, and the messages (answers, a
 * cancellation) that reach the instance running a task from whichever instance received them.
 * {@link memoryTaskStore} keeps them in this process; a Redis store keeps them where several
 * instances see them.
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';

/** A task's status, as the extension names them. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether `status` is final: the task will not change any more. */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A task as the store keeps it. Times are milliseconds since the epoch. */
export interface StoredTask {
  /** The task's id (a random UUID), unique in the store. */
  readonly taskId: string;
  /** The tool the task runs. */
  readonly tool: string;
  /** Where the task is (see {@link TaskStatus}). */
  readonly status: TaskStatus;
  /** What the call last said of itself (its progress), or why it ended as it did. */
  readonly statusMessage?: string;
  /** When the task was made. */
  readonly createdAt: number;
  /** When the task last changed. */
  readonly lastUpdatedAt: number;
  /** How long after `createdAt` the task is kept; null for as long as the store lives. */
  readonly ttlMs: number | null;
  /** How often clients are asked to poll it. */
  readonly pollIntervalMs?: number;
  /** The questions open while `input_required`, by key (MCP's `inputRequests`). */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  /** The tool call's result, once `completed`. */
  readonly result?: Readonly<Record<string, unknown>>;
  /** The JSON-RPC error, once `failed`. */
  readonly error?: Readonly<{
    /** The JSON-RPC error code. */
    code: number;
    /** What went wrong. */
    message: string;
    /** More about it, if anything. */
    data?: unknown;
  }>;
  /** The instance running the task (a random id per process). */
  readonly owner: string;
}

/** A task as read: the task, and whether its owner's lease still runs. */
export interface TaskView {
  /** The task as last written. */
  readonly task: StoredTask;
  /**
   * The instance running the task has renewed its lease in time. False for a task not final means
   * its instance is gone (stopped, killed, cut off): it will never finish it.
   */
  readonly leased: boolean;
}

/** What reaches the instance running a task from wherever its client's requests land. */
export type TaskMessage =
  | {
      /** Answers to the task's open questions (MCP's `inputResponses`), by key. */
      readonly kind: 'answers';
      /** The answers, by question key. */
      readonly inputResponses: Readonly<Record<string, unknown>>;
    }
  | {
      /** The client cancelled the task. */
      readonly kind: 'cancel';
    };

/**
 * Where tasks live (see the module): `memoryTaskStore()` here, `redisTaskStore(url)` from
 * `agenttool/redis` for instances that share tasks. Every method may reject when the store cannot
 * be reached; the server answers the request it serves with an error then, and the task stays as
 * it was last written.
 */
export interface TaskStore {
  /**
   * Creates `task`, its owner holding its lease for `leaseMs`; resolves once {@link TaskStore.get}
   * finds it, from any instance. Rejects for an id in use.
   */
  create(task: StoredTask, leaseMs: number): Promise<void>;
  /** The task and its lease, or undefined when there is none (never made, or past its TTL). */
  get(taskId: string): Promise<TaskView | undefined>;
  /**
   * Replaces a task with its owner's newer view. A task that is final already stays as it is, and
   * one that is gone (past its TTL) stays gone: resolves to false then, true when written.
   */
  put(task: StoredTask): Promise<boolean>;
  /**
   * Extends `owner`'s lease on `taskId` by `leaseMs` from now. Resolves to false, extending nothing,
   * when the task is gone or final, or its lease lapsed (another instance may have failed it).
   */
  renew(taskId: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Writes `failed` (a failed view of the task) when the task is not final and its lease has
   * lapsed, atomically: an owner that renewed in time keeps its task. Resolves to whether it wrote.
   */
  abandon(failed: StoredTask): Promise<boolean>;
  /** Sends `message` to the instance running `taskId` (see {@link TaskStore.messages}). */
  send(taskId: string, message: TaskMessage): Promise<void>;
  /**
   * Every message sent to `taskId`, in the order sent: those sent before the subscription first,
   * then each as it comes, for the instance running it; unsubscribing stops listening.
   */
  messages(taskId: string): Observable<TaskMessage>;
  /** Lets go of what the store holds open (connections, timers). */
  close(): Promise<void>;
}

/** Options of {@link memoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** The clock, in ms since the epoch (default `Date.now`): tests give their own. */
  now?: () => number;
}

interface MemoryEntry {
  task: StoredTask;
  leaseUntil: number;
  readonly inbox: TaskMessage[];
  readonly channel: Subject<TaskMessage>;
}

/** The entry of `taskId`, unless there is none or its TTL has passed (then it is dropped). */
function liveEntry(
  entries: Map<string, MemoryEntry>,
  taskId: string,
  now: number,
): MemoryEntry | undefined {
  const entry = entries.get(taskId);
  if (entry === undefined) return undefined;
  const { createdAt, ttlMs } = entry.task;
  if (ttlMs !== null && now >= createdAt + ttlMs) {
    entries.delete(taskId);
    entry.channel.complete();
    return undefined;
  }
  return entry;
}

function missing(taskId: string): Error {
  return new Error(`task store: no task ${JSON.stringify(taskId)}`);
}

/**
 * A {@link TaskStore} in this process's memory: tasks last as long as the process (or their TTL,
 * checked when read), and messages reach only a task running in this process. For one instance;
 * several instances share tasks through `redisTaskStore` (`agenttool/redis`).
 */
export function memoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, MemoryEntry>();
  const live = (taskId: string): MemoryEntry | undefined => liveEntry(entries, taskId, now());
  // The store is a plain object of own methods, so a caller may wrap it with a spread.
  return {
    create(task, leaseMs) {
      if (live(task.taskId) !== undefined)
        return Promise.reject(new Error(`task store: task ${JSON.stringify(task.taskId)} exists`));
      entries.set(task.taskId, {
        task,
        leaseUntil: now() + leaseMs,
        inbox: [],
        channel: new Subject<TaskMessage>(),
      });
      return Promise.resolve();
    },
    get(taskId) {
      const entry = live(taskId);
      return Promise.resolve(
        entry === undefined ? undefined : { task: entry.task, leased: now() < entry.leaseUntil },
      );
    },
    put(task) {
      const entry = live(task.taskId);
      if (entry === undefined || isTerminal(entry.task.status)) return Promise.resolve(false);
      entry.task = task;
      return Promise.resolve(true);
    },
    renew(taskId, owner, leaseMs) {
      const entry = live(taskId);
      if (
        entry === undefined ||
        isTerminal(entry.task.status) ||
        entry.task.owner !== owner ||
        now() >= entry.leaseUntil
      )
        return Promise.resolve(false);
      entry.leaseUntil = now() + leaseMs;
      return Promise.resolve(true);
    },
    abandon(failed) {
      const entry = live(failed.taskId);
      if (entry === undefined || isTerminal(entry.task.status) || now() < entry.leaseUntil)
        return Promise.resolve(false);
      entry.task = failed;
      return Promise.resolve(true);
    },
    send(taskId, message) {
      const entry = live(taskId);
      if (entry === undefined) return Promise.reject(missing(taskId));
      entry.inbox.push(message);
      entry.channel.next(message);
      return Promise.resolve();
    },
    messages(taskId) {
      return new Observable<TaskMessage>((subscriber) => {
        const entry = live(taskId);
        if (entry === undefined) {
          subscriber.error(missing(taskId));
          return;
        }
        for (const message of entry.inbox) subscriber.next(message);
        return entry.channel.subscribe(subscriber);
      });
    },
    close() {
      for (const entry of entries.values()) entry.channel.complete();
      return Promise.resolve();
    },
  };
}
