/**
 * What a fleet's dispatchers and workers share: its Redis connections (options, fault reports, a
 * close that does not wait on a Redis that is away) and the names of its channels and keys.
 *
 * @module
 */
import type { Redis, RedisOptions } from 'ioredis';
import { describeThrown } from '../../lib/errors.js';
import type { FleetConnection, FleetOptions } from './fleet.js';

/** What reports `error` events: a queue, a worker, a Redis connection. */
export type Emitter = { on(event: string, listener: (value: unknown) => void): unknown };

/**
 * Reports the Redis faults of `emitters` (their `error` events) one line per outage: quiet after
 * the first until `ready` is connected again.
 */
export function reportFaults(
  queue: string,
  options: FleetOptions,
  emitters: readonly Emitter[],
  ready: Redis,
): void {
  const tell =
    options.onError ?? ((error: Error) => process.stderr.write(`agenttool: ${error.message}\n`));
  let down = false;
  for (const emitter of emitters)
    emitter.on('error', (err) => {
      if (down) return;
      down = true;
      try {
        tell(new Error(`fleet: queue "${queue}": Redis: ${describeThrown(err)}`));
      } catch {
        // A reporter that throws must not take the process down.
      }
    });
  ready.on('ready', () => (down = false));
}

export const DEFAULT_QUEUE = 'agenttool';

/** How long (ms) a connection waits before it tries Redis again: 0.2 s more each time, up to 2 s. */
const retryDelay = (times: number): number => Math.min(200 * times, 2_000);

/**
 * ioredis options for `connection`, as BullMQ needs them (no retry limit per request). Once
 * `stopping()` holds, a connection that fails is not tried again: it ends, so that a Redis that is
 * away does not keep a closed fleet's process alive.
 */
export function redisOptionsOf(connection: FleetConnection, stopping: () => boolean): RedisOptions {
  if (typeof connection !== 'string') {
    const own = connection.retryStrategy;
    return {
      ...connection,
      maxRetriesPerRequest: null,
      retryStrategy: (times) =>
        stopping() ? null : typeof own === 'function' ? own(times) : retryDelay(times),
    };
  }
  if (!/^rediss?:\/\//.test(connection) || !URL.canParse(connection))
    throw new TypeError(
      `fleet: expected a redis:// or rediss:// URL, got ${JSON.stringify(connection)}`,
    );
  const url = new URL(connection);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
  return {
    host: url.hostname,
    port: url.port === '' ? 6379 : Number(url.port),
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(db === undefined || !Number.isInteger(db) ? {} : { db }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: (times) => (stopping() ? null : retryDelay(times)),
  };
}

/** `value` as JSON can carry it (what cannot be is dropped), for a job's progress or result. */
export function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return undefined;
  }
}

/** The channel on which a queue's cancellations are announced to its workers. */
export const cancelChannel = (queue: string): string => `agenttool:fleet:${queue}:cancel`;

/** The channel on which answers to a queue's questions are announced (the message: a job id). */
export const answersChannel = (queue: string): string => `agenttool:fleet:${queue}:answers`;

/** The list of a job's answers, `{ key, answer }` each, read by the worker asking. */
export const answersKey = (queue: string, jobId: string): string =>
  `agenttool:fleet:${queue}:answers:${jobId}`;

/** Whether `connection` has lost Redis (it is retrying, or gave up). */
export function isLost(connection: Redis): boolean {
  const status = connection.status;
  return status === 'reconnecting' || status === 'close' || status === 'end';
}

/**
 * Waits for `graceful` to close Redis clients, but not once `connection` has lost Redis (a Redis
 * that died would keep a graceful close waiting for ever): then `drop` lets go of what is left.
 */
export async function closeWithout(
  connection: Redis,
  graceful: Promise<unknown>,
  drop: () => void,
): Promise<void> {
  let lost: () => void = () => undefined;
  const down = new Promise<void>((resolve) => (lost = resolve));
  if (isLost(connection)) lost();
  else connection.once('close', lost);
  const closed = await Promise.race([graceful.then(() => true), down.then(() => false)]);
  connection.removeListener('close', lost);
  if (!closed) drop();
}
