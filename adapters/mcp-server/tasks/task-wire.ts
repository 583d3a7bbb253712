/**
 * The wire form of a task of MCP's tasks extension (`io.modelcontextprotocol/tasks`), and the
 * options a server's tasks are made with (task-host.ts serves them). docs/mcp.md says what a
 * client sees.
 *
 * @module
 */
import type { StoredTask, TaskStore } from './task-store.js';
import { TASKS_EXTENSION } from '../../mcp-shared/tasks-extension.js';

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

/** What a task's settings are, resolved from {@link TaskOptions}. */
export interface Settings {
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
}

export function settingsOf(options: TaskOptions): Settings {
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
