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
  readonly taskId: string;
  /** The tool the task runs. */
  readonly tool: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long after `createdAt` the task is kept; null for as long as the store lives. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** The questions open while `input_required`, by key (MCP's `inputRequests`). */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  /** The tool call's result, once `completed`. */
  readonly result?: Readonly<Record<string, unknown>>;
  /** The JSON-RPC error, once `failed`. */
  readonly error?: Readonly<{ code: number; message: string; data?: unknown }>;
  /** The instance running the task. */
  readonly owner: string;
  /**
   * Until when the owner vouches for the task (its lease): a task still unfinished past it has
   * lost its instance.
   */
  readonly leaseUntil: number;
}

/** What reaches the instance running a task from wherever its client's requests land. */
export type TaskMessage =
  | {
      /** Answers to the task's open questions (MCP's `inputResponses`), by key. */
      readonly kind: 'answers';
      readonly inputResponses: Readonly<Record<string, unknown>>;
    }
  | {
      /** The client cancelled the task. */
      readonly kind: 'cancel';
    };

/** Where tasks live (see the module). Every method may reject when the store cannot be reached. */
export interface TaskStore {
  /** Creates `task`, resolving once {@link TaskStore.get} finds it. Rejects for an id in use. */
  create(task: StoredTask): Promise<void>;
  /** The task, or undefined when there is none (never made, or past its TTL). */
  get(taskId: string): Promise<StoredTask | undefined>;
  /**
   * Replaces a task with the owner's newer view of it. A task that is final already stays as it
   * is: resolves to false then, true when written. Rejects when there is no such task.
   */
  put(task: StoredTask): Promise<boolean>;
  /** Sends `message` to the instance running `taskId` (see {@link TaskStore.messages}). */
  send(taskId: string, message: TaskMessage): Promise<void>;
  /**
   * The messages sent to `taskId` from now on, in the order sent, for the instance running it;
   * unsubscribing stops listening.
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

/**
 * A {@link TaskStore} in this process's memory: tasks last as long as the process (or their TTL,
 * checked when read), and messages reach only a task running in this process. For one instance;
 * several instances share tasks through a Redis store.
 */
export function memoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const now = options.now ?? Date.now;
  const tasks = new Map<string, StoredTask>();
  const channels = new Map<string, Subject<TaskMessage>>();
  const live = (task: StoredTask | undefined): StoredTask | undefined => {
    if (task === undefined) return undefined;
    if (task.ttlMs !== null && now() >= task.createdAt + task.ttlMs) {
      tasks.delete(task.taskId);
      return undefined;
    }
    return task;
  };
  return {
    create(task) {
      if (live(tasks.get(task.taskId)) !== undefined)
        return Promise.reject(new Error(`task store: task ${JSON.stringify(task.taskId)} exists`));
      tasks.set(task.taskId, task);
      return Promise.resolve();
    },
    get(taskId) {
      return Promise.resolve(live(tasks.get(taskId)));
    },
    put(task) {
      const known = live(tasks.get(task.taskId));
      if (known === undefined)
        return Promise.reject(new Error(`task store: no task ${JSON.stringify(task.taskId)}`));
      if (isTerminal(known.status)) return Promise.resolve(false);
      tasks.set(task.taskId, task);
      return Promise.resolve(true);
    },
    send(taskId, message) {
      channels.get(taskId)?.next(message);
      return Promise.resolve();
    },
    messages(taskId) {
      return new Observable<TaskMessage>((subscriber) => {
        let channel = channels.get(taskId);
        if (channel === undefined) channels.set(taskId, (channel = new Subject<TaskMessage>()));
        const subscription = channel.subscribe(subscriber);
        return () => {
          subscription.unsubscribe();
          if (!channel.observed) channels.delete(taskId);
        };
      });
    },
    close() {
      for (const channel of channels.values()) channel.complete();
      channels.clear();
      return Promise.resolve();
    },
  };
}
