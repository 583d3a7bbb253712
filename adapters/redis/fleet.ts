/**
 * A worker fleet for tool calls on BullMQ: `queueTools` gives tools whose calls run on the
 * workers a queue feeds, and `runWorker` runs tools for the calls it takes from the queue. A call
 * is a BullMQ job whose id is derived from the call's idempotency key, so a call sent again is
 * never run twice; its progress comes back as the job's progress, its end as the job's result or
 * failure; unsubscribing cancels it on whichever worker runs it. docs/scaling-out.md says when to
 * use it.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import {
  Queue,
  QueueEvents,
  UnrecoverableError,
  WaitingError,
  Worker,
  type ConnectionOptions,
  type Job,
} from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { lastValueFrom, Observable, tap } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  Tool,
  ToolCall,
  ToolContext,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { receivedRecord } from '../mcp-shared/mcp-records.js';
import { describeThrown, NotReplayedError } from '../../lib/errors.js';
import { idempotencyKeyOf, replayOf } from '../../lib/replay.js';
import { wrap } from '../../lib/wrap.js';
import { executeBatch } from '../../operators/execute-batch.js';

/** Where the fleet's queue lives: a Redis URL (`redis://host:port`), or ioredis options. */
export type FleetConnection = string | RedisOptions;

/** Options of {@link queueTools} and {@link runWorker}. */
export interface FleetOptions {
  /** The Redis the queue lives in. */
  connection: FleetConnection;
  /** The queue's name (default `agenttool`): dispatchers and workers of one fleet share it. */
  queue?: string | undefined;
  /**
   * Told when the connection to Redis fails (once per outage, not per retry), so that it never
   * takes the process down. Default: one line on stderr. Calls wait meanwhile, and go on once
   * Redis is back; a call whose job Redis lost (it came back without its data) is sent again when
   * its tool's `replay` allows, and fails unrun (not_replayed) otherwise.
   */
  onError?: ((error: Error) => void) | undefined;
}

/** What reports `error` events: a queue, a worker, a Redis connection. */
type Emitter = { on(event: string, listener: (value: unknown) => void): unknown };

/**
 * Reports the Redis faults of `emitters` (their `error` events) one line per outage: quiet after
 * the first until `ready` is connected again.
 */
function reportFaults(
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

/** Options of {@link runWorker}. */
export interface WorkerOptions extends FleetOptions {
  /** Calls this worker runs at once (default 1). */
  concurrency?: number | undefined;
  /**
   * How long (ms) a worker holds a call without renewing its lock (BullMQ's `lockDuration`,
   * default 30 s): a worker that dies leaves its calls to the others about two of these later.
   */
  lockDuration?: number | undefined;
  /**
   * How often (ms) this worker looks for calls whose worker died (BullMQ's `stalledInterval`,
   * default 30 s), and gives them back to the queue.
   */
  stalledInterval?: number | undefined;
}

const DEFAULT_QUEUE = 'agenttool';

/** How long (ms) a connection waits before it tries Redis again: 0.2 s more each time, up to 2 s. */
const retryDelay = (times: number): number => Math.min(200 * times, 2_000);

/**
 * ioredis options for `connection`, as BullMQ needs them (no retry limit per request). Once
 * `stopping()` holds, a connection that fails is not tried again: it ends, so that a Redis that is
 * away does not keep a closed fleet's process alive.
 */
function redisOptionsOf(connection: FleetConnection, stopping: () => boolean): RedisOptions {
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

/**
 * The job id of a call: derived from its batch (see {@link QueueToolsOptions.batch}) and its
 * idempotency key (the call id, or the application's own key), the same wherever it is sent from.
 */
export function jobIdOf(call: ToolCall, batch = ''): string {
  const key = `${batch}\n${idempotencyKeyOf(call)}`;
  return `call-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

/** Options of {@link queueTools}. */
export interface QueueToolsOptions extends FleetOptions {
  /**
   * The batch the calls belong to, in their job ids (default none): calls with the same id in two
   * batches are two jobs. Give the same value to the dispatcher that picks a batch up again after
   * a restart; a call with an `idempotencyKey` of its own is one job under that key whatever the
   * batch (`agenttool run --redis` gives each run its own).
   */
  batch?: string | undefined;
}

/** What a job carries: the tool's name and the call. */
interface CallData {
  readonly tool: string;
  readonly call: {
    readonly id: string;
    readonly args: string;
    readonly idempotencyKey: string;
    readonly trace?: ToolCall['trace'];
  };
}

/** A call's end as the worker returns it (the job's result). */
interface Finished {
  readonly output: ToolResult['output'];
  readonly details?: unknown;
  readonly terminate?: boolean;
}

/** A failure as the worker throws it (the job's failed reason): the error's message and code. */
const FAILURE = 'agenttool-failure:';

function failureText(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return `${FAILURE}${JSON.stringify(typeof code === 'string' ? { message: error.message, code } : { message: error.message })}`;
}

function failureOf(reason: string): Error {
  if (reason.startsWith(FAILURE)) {
    try {
      const { message, code } = JSON.parse(reason.slice(FAILURE.length)) as {
        message: string;
        code?: string;
      };
      return Object.assign(new Error(message), code === undefined ? {} : { code });
    } catch {
      // Not ours after all: read as it is.
    }
  }
  return new Error(reason);
}

/** `value` as JSON can carry it (what cannot be is dropped), for a job's progress or result. */
function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return undefined;
  }
}

/** The channel on which a queue's cancellations are announced to its workers. */
const cancelChannel = (queue: string): string => `agenttool:fleet:${queue}:cancel`;

/** The channel on which answers to a queue's questions are announced (the message: a job id). */
const answersChannel = (queue: string): string => `agenttool:fleet:${queue}:answers`;

/** The list of a job's answers, `{ key, answer }` each, read by the worker asking. */
const answersKey = (queue: string, jobId: string): string =>
  `agenttool:fleet:${queue}:answers:${jobId}`;

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

interface Watch {
  progress(data: unknown): void;
  completed(value: unknown): void;
  failed(reason: string): void;
  /** Looks at the call's job again, once Redis is back after an outage. */
  recheck(): void;
}

/** Whether `connection` has lost Redis (it is retrying, or gave up). */
function isLost(connection: Redis): boolean {
  const status = connection.status;
  return status === 'reconnecting' || status === 'close' || status === 'end';
}

/**
 * Waits for `graceful` to close Redis clients, but not once `connection` has lost Redis (a Redis
 * that died would keep a graceful close waiting for ever): then `drop` lets go of what is left.
 */
async function closeWithout(
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

/**
 * `tools` with the same definitions (name, description, schema, `sequential`, `resource`,
 * `replay`, ...: `wrap` keeps every property) whose calls run on the workers of a BullMQ queue
 * (see {@link runWorker}), so that `executeBatch` and everything built on it runs them unchanged.
 * A call is a job whose id is derived from its idempotency key (`jobIdOf`): sent again (a
 * dispatcher restarted), it is the same job, run once, and its result is read back. Its progress
 * events come back as they are made; its final event or failure ends the call. Unsubscribing
 * cancels it: a job still waiting is removed, one running is cancelled on its worker (its
 * tool's call is unsubscribed, its signal aborts).
 */
export function queueTools(tools: Iterable<Tool>, options: QueueToolsOptions): QueuedTools {
  const name = options.queue ?? DEFAULT_QUEUE;
  /** Closed on a lost connection: no connection tries Redis again. */
  let stopping = false;
  const redis = redisOptionsOf(options.connection, () => stopping);
  const connection = redis as ConnectionOptions;
  const queue = new Queue<CallData, Finished, string>(name, { connection });
  const events = new QueueEvents(name, { connection });
  const publisher = new Redis(redis);
  reportFaults(name, options, [queue, events, publisher] as Emitter[], publisher);
  const watches = new Map<string, Watch>();
  events.on('progress', ({ jobId, data }) => watches.get(jobId)?.progress(data));
  events.on('completed', ({ jobId, returnvalue }) => watches.get(jobId)?.completed(returnvalue));
  events.on('failed', ({ jobId, failedReason }) => watches.get(jobId)?.failed(failedReason));
  // Back after an outage: each call's job is looked at again (Redis may have come back empty, or
  // the call may have ended while the dispatcher could not hear it).
  publisher.once('ready', () =>
    publisher.on('ready', () => {
      for (const watch of [...watches.values()]) watch.recheck();
    }),
  );
  const ready = events.waitUntilReady();
  let closed = false;

  const run = (tool: Tool, call: ToolCall, context: ToolContext): Observable<ToolEvent> =>
    new Observable<ToolEvent>((subscriber) => {
      if (closed) {
        subscriber.error(new Error(`fleet: queue "${name}" is closed`));
        return;
      }
      const jobId = jobIdOf(call, call.idempotencyKey === undefined ? (options.batch ?? '') : '');
      let ended = false;
      const end = (): void => {
        ended = true;
        watches.delete(jobId);
      };
      const finish = (value: unknown): void => {
        if (ended) return;
        end();
        const finished = (typeof value === 'string' ? JSON.parse(value) : value) as Finished;
        const result: ToolResult = { output: finished.output };
        if (finished.details !== undefined) result.details = finished.details;
        if (finished.terminate === true) result.terminate = true;
        subscriber.next({ final: true, result });
        subscriber.complete();
      };
      const fail = (reason: string): void => {
        if (ended) return;
        end();
        subscriber.error(failureOf(reason));
      };
      // Records the worker's call made are written through this call's context, in order, before
      // its end is given (they come ahead of it on the queue's event stream).
      let recorded: Promise<unknown> = Promise.resolve();
      watches.set(jobId, {
        progress: (data) => {
          if (ended) return;
          const { output, details, record, question } = (data ?? {}) as {
            output?: unknown;
            details?: unknown;
            record?: { ns?: unknown; data?: unknown };
            question?: { key?: unknown; request?: unknown };
          };
          if (record !== undefined) {
            if (typeof record.ns === 'string' && typeof record.data === 'string') {
              const made = receivedRecord(record.ns, record.data, `fleet:${name}`);
              recorded = recorded.then(() => context.record(made)).catch(() => undefined);
            }
            return;
          }
          if (question !== undefined) {
            if (typeof question.key !== 'string') return;
            const key = question.key;
            const asked = context
              .elicit(question.request as ElicitRequest)
              .catch((): ElicitResult => ({ action: 'cancel' }));
            void asked
              .then((answer) =>
                publisher
                  .multi()
                  .rpush(answersKey(name, jobId), JSON.stringify({ key, answer }))
                  .expire(answersKey(name, jobId), 3600)
                  .publish(answersChannel(name), jobId)
                  .exec(),
              )
              .catch(() => undefined);
            return;
          }
          const result: ToolResult = { output: (output ?? '') as ToolResult['output'] };
          if (details !== undefined) result.details = details;
          subscriber.next({ final: false, result });
        },
        completed: (value) => void recorded.then(() => finish(value)),
        failed: (reason) => void recorded.then(() => fail(reason)),
        recheck: () => {
          if (!placed || ended) return;
          queue
            .getJob(jobId)
            .then(async (job) => {
              if (ended) return;
              if (job !== undefined) return settle(job);
              // Gone: Redis came back without its data. The call is sent again when its tool is
              // safe to run twice, and fails unrun otherwise, as when its worker dies.
              if (replayOf(tool) !== 'unsafe') return place();
              end();
              subscriber.error(
                new NotReplayedError(
                  call.id,
                  tool.name,
                  `its job was lost with Redis's data, and tool "${tool.name}" is not safe to run twice`,
                ),
              );
            })
            // Redis away again: looked at once it is back.
            .catch(() => undefined);
        },
      });
      const data: CallData = {
        tool: tool.name,
        call: {
          id: call.id,
          args: call.args,
          idempotencyKey: idempotencyKeyOf(call),
          ...(call.trace === undefined ? {} : { trace: call.trace }),
        },
      };
      /** Gives the end of the call's job when it has one. */
      const settle = async (job: Job<CallData, Finished, string>): Promise<void> => {
        const state = await job.getState();
        if (ended || (state !== 'completed' && state !== 'failed')) return;
        // Read back: a job `add` found already carries the data it was given, not its end.
        const done = await queue.getJob(jobId);
        await recorded;
        if (state === 'completed') finish(done?.returnvalue);
        else fail(done?.failedReason ?? 'failed');
      };
      /** The call's job is in Redis (added, or found there already). */
      let placed = false;
      // Listening first: a job that ends at once is not missed. A job that exists already (the
      // call sent again) is the same job: its end is read back if it has one.
      const place = (): Promise<void> =>
        ready
          .then(() =>
            queue.add(tool.name, data, {
              jobId,
              attempts: 1,
              removeOnComplete: { age: 3600 },
              removeOnFail: { age: 3600 },
            }),
          )
          .then((job) => {
            placed = true;
            if (!ended) return settle(job);
          })
          .catch((err: unknown) => fail(`fleet: queue "${name}": ${describeThrown(err)}`));
      void place();
      return () => {
        if (ended) return;
        end();
        // Waiting: removed; running: cancelled on its worker (a removal of a locked job fails).
        void queue
          .remove(jobId)
          .catch(() => 0)
          .then((removed) =>
            removed === 1 ? undefined : publisher.publish(cancelChannel(name), jobId),
          )
          .catch(() => undefined);
      };
    });

  return {
    tools: [...tools].map((tool) =>
      wrap(tool, { execute: (call, context) => run(tool, call, context), close: undefined }),
    ),
    async close() {
      closed = true;
      for (const watch of [...watches.values()]) watch.failed(`fleet: queue "${name}" closed`);
      await closeWithout(
        publisher,
        (async () => {
          await Promise.all([queue.close(), events.close()]);
          await publisher.quit().catch(() => undefined);
        })(),
        () => {
          stopping = true;
          // BullMQ's own connections end at their next try (see the worker's close).
          publisher.disconnect();
        },
      );
    },
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

/**
 * Runs `tools` for the calls a BullMQ queue holds (see {@link queueTools}), `concurrency` at a
 * time. Each call runs through `executeBatch` (its arguments checked, its progress sent back as
 * the job's progress); a call cancelled by its dispatcher is unsubscribed. A call taken again
 * after its worker died runs again only when its tool's `replay` is `'safe'` or `'idempotent'`;
 * any other fails with a NotReplayedError (`not_replayed`), never running twice.
 */
export async function runWorker(
  tools: Iterable<Tool>,
  options: WorkerOptions,
): Promise<FleetWorker> {
  const name = options.queue ?? DEFAULT_QUEUE;
  /** Closed on a lost connection: no connection tries Redis again. */
  let stopping = false;
  const redis = redisOptionsOf(options.connection, () => stopping);
  const byName = new Map<string, Tool>();
  for (const tool of tools) byName.set(tool.name, tool);
  const cancelled = new Map<string, AbortController>();
  /** The questions open, by job id, then key: each waits for its dispatcher's answer. */
  const asking = new Map<string, Map<string, (answer: ElicitResult) => void>>();
  const commands = new Redis(redis);
  /** Reads the answers that came for `jobId`, handing each to its question. */
  const readAnswers = async (jobId: string): Promise<void> => {
    const open = asking.get(jobId);
    if (open === undefined) return;
    for (;;) {
      const text = await commands.lpop(answersKey(name, jobId)).catch(() => null);
      if (text === null) return;
      try {
        const { key, answer } = JSON.parse(text) as { key: string; answer: ElicitResult };
        open.get(key)?.(answer);
        open.delete(key);
      } catch {
        // Not an answer this fleet wrote: skipped.
      }
    }
  };
  let running = 0;
  /** The worker is closing with `force`: its running calls are handed back. */
  let handingBack = false;
  const processor = async (
    job: Job<CallData, Finished, string>,
    token?: string,
    signal?: AbortSignal,
  ): Promise<Finished> => {
    const { tool: toolName, call } = job.data;
    const tool = byName.get(toolName);
    if (tool === undefined)
      throw new UnrecoverableError(
        failureText(
          Object.assign(new Error(`no tool "${toolName}" on this worker`), { code: 'no_tool' }),
        ),
      );
    // Taken again after a worker died mid-call: only a call safe to run twice runs again.
    if ((job.attemptsStarted > 1 || job.stalledCounter > 0) && replayOf(tool) === 'unsafe')
      throw new UnrecoverableError(
        failureText(
          new NotReplayedError(call.id, tool.name, `tool "${tool.name}" is not safe to run twice`),
        ),
      );
    // Taken while this worker closes with `force` (a fetch already under way): handed back unrun.
    if (handingBack) {
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const controller = new AbortController();
    cancelled.set(job.id!, controller);
    signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    running++;
    const jobId = job.id!;
    let questions = 0;
    asking.set(jobId, new Map());
    try {
      const final = await lastValueFrom(
        executeBatch([{ tool, call: { ...call } }], {
          signal: controller.signal,
          // What the call records goes to its dispatcher's recorder, in order.
          recorder: (record) =>
            job.updateProgress({ record: { ns: record.ns, data: record.data } } as object),
          // Its questions go to its dispatcher's elicitor, and the answers come back.
          elicitor: (request) =>
            new Promise<ElicitResult>((resolve) => {
              const key = `q${++questions}`;
              asking.get(jobId)?.set(key, resolve);
              void job
                .updateProgress({ question: { key, request: jsonSafe(request) } } as object)
                .then(() => readAnswers(jobId))
                .catch(() => resolve({ action: 'cancel' }));
            }),
        }).pipe(
          tap((event) => {
            // Progress only: the batch's own events about the call (a question asked) are not
            // the tool's to send.
            if (!event.final && event.result !== undefined)
              void job
                .updateProgress({
                  output: jsonSafe(event.result!.output) ?? '',
                  details: jsonSafe(event.result!.details),
                } as object)
                .catch(() => undefined);
          }),
        ),
      );
      // Stopped by this worker's `close(true)`: handed back to the queue for another worker (a
      // call not safe to run twice then fails there, unrun, with not_replayed).
      if (handingBack && final.error !== undefined) {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (final.error !== undefined) throw new UnrecoverableError(failureText(final.error));
      const result = final.result!;
      return {
        output: (jsonSafe(result.output) ?? '') as ToolResult['output'],
        ...(result.details === undefined ? {} : { details: jsonSafe(result.details) }),
        ...(result.terminate === true ? { terminate: true } : {}),
      } satisfies Finished;
    } finally {
      running--;
      cancelled.delete(jobId);
      asking.delete(jobId);
    }
  };
  const worker = new Worker<CallData, Finished, string>(name, processor, {
    connection: redis as ConnectionOptions,
    concurrency: options.concurrency ?? 1,
    ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
    ...(options.stalledInterval === undefined ? {} : { stalledInterval: options.stalledInterval }),
  });
  const listener = new Redis(redis);
  reportFaults(name, options, [worker, listener, commands] as Emitter[], listener);
  listener.on('message', (channel: string, jobId: string) => {
    if (channel === answersChannel(name)) void readAnswers(jobId);
    else cancelled.get(jobId)?.abort(new Error('cancelled by its dispatcher'));
  });
  await listener.subscribe(cancelChannel(name), answersChannel(name));
  await worker.waitUntilReady();
  return {
    get running() {
      return running;
    },
    async close(force = false) {
      // Redis away: nothing can be handed back or written, and only BullMQ's forced close does
      // not wait on Redis (its graceful one waits for a reply that does not come).
      const away = isLost(commands);
      if (force && !away) {
        handingBack = true;
        // Paused first: BullMQ then takes no further job, not even the one handed back (it fetches
        // the next job as a call ends, and the next would be that one).
        await worker.pause(true);
        for (const controller of cancelled.values()) controller.abort(new Error('worker closed'));
        // The calls stopped hand their jobs back (a moment: their tools' teardown, one write; none
        // while Redis is away).
        const until = Date.now() + 5_000;
        while (running > 0 && Date.now() < until && !isLost(commands))
          await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await closeWithout(
        commands,
        (async () => {
          await worker.close(force || away);
          await listener.quit().catch(() => undefined);
          await commands.quit().catch(() => undefined);
        })(),
        () => {
          stopping = true;
          // BullMQ's own connections are left to end at their next try (which `stopping` turns
          // down): its close then goes on and stops its timers. Disconnected, they would not end.
          listener.disconnect();
          commands.disconnect();
        },
      );
    },
  };
}
