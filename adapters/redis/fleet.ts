/**
 * A worker fleet for tool calls on BullMQ: `queueTools` gives tools whose calls run on the
 * workers a queue feeds, and `runWorker` runs tools for the calls it takes from the queue. A call
 * is a BullMQ job whose id is derived from the call's idempotency key, so a call sent again is
 * never run twice; its progress comes back as the job's progress, its end as the job's result or
 * failure; unsubscribing cancels it on whichever worker runs it. Everything read from Redis is
 * checked on arrival (fleet-message.ts), and with a `secret` calls and their ends are signed
 * (fleet-signing.ts). docs/scaling-out.md says when to use it.
 *
 * The dispatcher is fleet-dispatcher.ts (a call: fleet-call.ts), the worker fleet-worker.ts (a
 * job: fleet-worker-call.ts); this file holds their options and public entry points.
 *
 * @module
 */
import type { RedisOptions } from 'ioredis';
import type { Tool } from '../../lib/contract.js';
import { wrap } from '../../lib/wrap.js';
import { Dispatcher } from './fleet-dispatcher.js';
import { WorkerRunner } from './fleet-worker.js';

export { jobIdOf } from './fleet-job-id.js';

/** Where the fleet's queue lives: a Redis URL (`redis://host:port`), or ioredis options. */
export type FleetConnection = string | RedisOptions;

/** Options of {@link queueTools} and {@link runWorker}. */
export interface FleetOptions {
  /** The Redis the queue lives in. */
  connection: FleetConnection;
  /** The queue's name (default `agenttool`): dispatchers and workers of one fleet share it. */
  queue?: string | undefined;
  /**
   * The fleet's shared secret (at least 32 bytes; default none). With it a dispatcher signs each
   * call it sends (HMAC-SHA256 over the tool, arguments, call and batch ids and idempotency key)
   * and takes only the ends its workers signed; a worker runs only the calls a dispatcher signed,
   * failing any other unrun (`unsigned_job`). Without it, whoever can write to the fleet's Redis
   * can have a worker run any of its tools. A shorter secret is a TypeError.
   */
  secret?: string | Uint8Array | undefined;
  /**
   * Told when the connection to Redis fails (once per outage, not per retry), so that it never
   * takes the process down. Default: one line on stderr. Calls wait meanwhile, and go on once
   * Redis is back; a call whose job Redis lost (it came back without its data) is sent again when
   * its tool's `replay` allows, and fails unrun (not_replayed) otherwise.
   */
  onError?: ((error: Error) => void) | undefined;
  /**
   * Told once, on start, what a worker without a `secret` runs (any job written to its queue).
   * Default: `process.emitWarning`.
   */
  onWarning?: ((message: string) => void) | undefined;
}

/** Options of {@link runWorker}. */
export interface WorkerOptions extends FleetOptions {
  /** Calls this worker runs at once (default 1). */
  concurrency?: number | undefined;
  /**
   * How long (ms) a worker holds a call without renewing its lock (BullMQ's `lockDuration`;
   * default 5 s, BullMQ's own is 30 s): a worker that dies leaves its calls to the others once
   * its locks have lapsed and the next look for stalled calls ({@link stalledInterval}) has come,
   * within 7.5 s by the defaults. A
   * call whose lock goes unrenewed for three quarters of it (Redis away, the worker cut off) is
   * stopped on this worker, its signal aborted, before another can take its job.
   */
  lockDuration?: number | undefined;
  /**
   * How often (ms) this worker looks for calls whose worker died (BullMQ's `stalledInterval`;
   * default 2.5 s, BullMQ's own is 30 s), and gives them back to the queue. Each look is one
   * Redis script per worker.
   */
  stalledInterval?: number | undefined;
}

/** Options of {@link queueTools}. */
export interface QueueToolsOptions extends FleetOptions {
  /**
   * The batch the calls belong to, in their job ids (default none): calls with the same id in two
   * batches are two jobs. Given again, by a dispatcher that runs the same calls after a restart,
   * it resumes the batch: a call that finished gives its result (kept an hour), one still running
   * is waited for, and none runs twice. A call with an `idempotencyKey` of its own is one job under
   * that key whatever the batch (`agenttool run --redis` gives each run its own, or `--batch-id`).
   */
  batchId?: string | undefined;
  /** The former name of {@link batchId}, still taken. */
  batch?: string | undefined;
}

/** Tools whose calls run on a fleet's workers (see {@link queueTools}), and their shared parts. */
export interface QueuedTools {
  /** The tools: the same definitions, their calls run on the fleet. */
  readonly tools: readonly Tool[];
  /**
   * Closes the queue's connections, without waiting for a Redis that is away; calls still waiting
   * fail.
   */
  close(): Promise<void>;
}

/**
 * `tools` with the same definitions (name, description, schema, `sequential`, `resource`,
 * `replay`, ...: `wrap` keeps every property) whose calls run on the workers of a BullMQ queue
 * (see {@link runWorker}), so that `executeBatch` and everything built on it runs them unchanged.
 * A call is a job whose id is derived from its idempotency key (`jobIdOf`): sent again (a
 * dispatcher restarted), it is the same job, run once, and its result is read back. Its progress
 * events come back as they are made; its final event or failure ends the call. An entry in Redis
 * that is not what a worker writes (or, with a `secret`, not signed) fails its call alone, with a
 * FleetMessageError naming the job. Unsubscribing cancels it: a job still waiting is removed, one
 * running is cancelled on its worker (its tool's call is unsubscribed, its signal aborts).
 */
export function queueTools(tools: Iterable<Tool>, options: QueueToolsOptions): QueuedTools {
  const dispatcher = new Dispatcher(options);
  return {
    tools: [...tools].map((tool) =>
      wrap(tool, {
        execute: (call, context) => dispatcher.run(tool, call, context),
        close: undefined,
      }),
    ),
    close: () => dispatcher.close(),
  };
}

/** A running worker (see {@link runWorker}). */
export interface FleetWorker {
  /** Calls running on this worker now. */
  readonly running: number;
  /**
   * Stops taking calls and waits for the running ones to finish; `force` cancels them instead and
   * hands them back to the queue: another worker runs each again if its tool is safe to run twice,
   * and fails it unrun (not_replayed) otherwise.
   */
  close(force?: boolean): Promise<void>;
}

/** What a worker without a secret is told on start. */
export const UNSIGNED_WARNING =
  'fleet: this worker has no secret: it runs any job written to its queue by anyone who can write to its Redis (give it and its dispatchers the same secret)';

/**
 * Runs `tools` for the calls a BullMQ queue holds (see {@link queueTools}), `concurrency` at a
 * time. Each call runs through `executeBatch` (its arguments checked, its progress sent back as
 * the job's progress); a call cancelled by its dispatcher is unsubscribed. A call taken again
 * after its worker died runs again only when its tool's `replay` is `'safe'` or `'idempotent'`;
 * any other fails with a NotReplayedError (`not_replayed`), never running twice. A job whose data
 * is not a call, or (with a `secret`) is not signed, fails unrun.
 */
export async function runWorker(
  tools: Iterable<Tool>,
  options: WorkerOptions,
): Promise<FleetWorker> {
  const runner = new WorkerRunner(tools, options);
  if (options.secret === undefined) {
    const warn = options.onWarning ?? ((message: string) => process.emitWarning(message));
    try {
      warn(UNSIGNED_WARNING);
    } catch {
      // A reporter that throws must not stop the worker.
    }
  }
  await runner.start();
  return {
    get running() {
      return runner.running;
    },
    close: (force = false) => runner.close(force),
  };
}
