/**
 * `CallRooms`: the caps of the calls that run on past their request, each apart from
 * `maxConcurrentCalls`: held calls (waiting for their client's answer, see held-calls.ts), which
 * take no admission slot while they wait, and tasks. A call that would need a room that is full
 * is answered busy before it runs, so unanswered questions cannot lock an instance nor fill its
 * memory.
 *
 * @module
 */
import { CLIENT_CAPABILITIES_META_KEY, type Server } from '@modelcontextprotocol/server';
import { clientElicits } from '../client-elicitor.js';
import { declaresRoots, relaysRoots } from '../roots-relay.js';
import type { HeldCall } from './held-calls.js';
import { declaresTasks, existingTaskHost } from '../tasks/task-host.js';
import type { TaskStore } from '../tasks/task-store.js';

/** The default `maxHeldCalls` of `serveHttp`. */
export const DEFAULT_MAX_HELD_CALLS = 1000;

/** The default `maxTasks` of `serveHttp`. */
export const DEFAULT_MAX_TASKS = 1000;

/** The tool call a POST carries, as the room needs it: its tool and the client's capabilities. */
function callOf(body: unknown): { name: unknown; capabilities: unknown } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const { name, _meta: meta } = params as { name?: unknown; _meta?: unknown };
  const capabilities =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY]
      : undefined;
  return { name, capabilities };
}

/** Checks a whole number cap, at least 1. */
function capOf(name: string, value: number | undefined, fallback: number): number {
  const cap = value ?? fallback;
  if (!(Number.isSafeInteger(cap) && cap >= 1))
    throw new RangeError(`${name} must be a whole number, at least 1, got ${String(value)}`);
  return cap;
}

/** The rooms of held calls and of tasks (see the module). */
export class CallRooms {
  readonly maxHeld: number;
  readonly maxTasks: number;

  constructor(
    maxHeld: number | undefined,
    maxTasks: number | undefined,
    /** The store a server serves `tool` as a task with, when it does (see `taskStoreOf`). */
    private readonly taskStoreOf: (server: Server, tool: string) => TaskStore | undefined,
  ) {
    this.maxHeld = capOf('maxHeldCalls', maxHeld, DEFAULT_MAX_HELD_CALLS);
    this.maxTasks = capOf('maxTasks', maxTasks, DEFAULT_MAX_TASKS);
  }

  /**
   * The busy message for a new call (no `requestState`) of MCP 2026-07-28 that `server` would
   * serve for `body`, when a room it may need is full: a task, when the tool runs as one for this
   * client and `maxTasks` run here; a held call, when its client answers questions and
   * `maxHeldCalls` of this handler's wait. Undefined when it has room (or needs none).
   */
  /** This handler's calls that were held, until they are over (see `HeldCall.over`). */
  private readonly calls = new Set<HeldCall>();

  /** Counts `call` against `maxHeldCalls` while it waits, until it is over. */
  hold(call: HeldCall): void {
    this.calls.add(call);
  }

  /** The calls that wait for their clients' answers now. */
  get held(): number {
    let waiting = 0;
    for (const call of this.calls)
      if (call.over) this.calls.delete(call);
      else if (call.isHeld) waiting++;
    return waiting;
  }

  /** Cancels every call still held (their questions end with `cancel`): for a closing server. */
  cancelAll(): void {
    for (const call of this.calls) if (!call.over) call.cancel();
    this.calls.clear();
  }

  refusal(server: Server, body: unknown): string | undefined {
    const call = callOf(body);
    if (call === undefined) return undefined;
    const { name, capabilities } = call;
    if (typeof name === 'string' && declaresTasks(capabilities)) {
      const store = this.taskStoreOf(server, name);
      const running = store === undefined ? 0 : (existingTaskHost(store)?.size ?? 0);
      if (store !== undefined && running >= this.maxTasks)
        return `Server busy: ${this.maxTasks} tasks running; retry later`;
    }
    // A client a proxy's call may ask for its roots is held too (see relayed-roots.ts).
    const asked =
      typeof capabilities === 'object' &&
      capabilities !== null &&
      (clientElicits(server, capabilities) || (relaysRoots(server) && declaresRoots(capabilities)));
    if (asked && this.held >= this.maxHeld)
      return `Server busy: ${this.maxHeld} calls waiting for their clients' answers; retry later`;
    return undefined;
  }
}
