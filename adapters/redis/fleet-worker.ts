/**
 * The working side of a fleet (`runWorker`): a BullMQ worker whose jobs run as
 * {@link WorkerCall}s, the channels its dispatchers cancel and answer on, and the watch on each
 * call's job lock: a call whose lock is not renewed for three quarters of `lockDuration` (Redis
 * away, the worker cut off) is stopped, since another worker may take its job once the lock lapses.
 *
 * @module
 */
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { ElicitResult, Tool } from '../../lib/contract.js';
import {
  answersChannel,
  answersKey,
  cancelChannel,
  closeWithout,
  DEFAULT_QUEUE,
  isLost,
  redisOptionsOf,
  reportFaults,
  type Emitter,
} from './fleet-connection.js';
import type { CallData, Finished } from './fleet-message.js';
import { FleetSigner } from './fleet-signing.js';
import { WorkerCall } from './fleet-worker-call.js';
import type { WorkerOptions } from './fleet.js';

/**
 * The fleet's defaults for BullMQ's `lockDuration` and `stalledInterval` (ms; BullMQ's own are
 * 30 s each): a killed worker's calls are back in the queue within 7.5 s at most (its lock lapses
 * within 5 s of its last renewal, renewed every 2.5 s; the next look for stalled jobs comes within
 * 2.5 s of that), and another worker takes them then. See docs/scaling-out.md.
 */
export const FLEET_LOCKS = Object.freeze({ lockDuration: 5_000, stalledInterval: 2_500 });

/** A fleet worker: takes jobs, runs each as a WorkerCall, hands them back when closed by force. */
export class WorkerRunner {
  readonly name: string;
  readonly signer: FleetSigner | undefined;
  readonly tools = new Map<string, Tool>();
  /** The worker is closing with `force`: its running calls are handed back. */
  handingBack = false;
  readonly #calls = new Map<string, WorkerCall>();
  /** When each running call's lock was last renewed (or taken). */
  readonly #renewed = new Map<string, number>();
  readonly #lockDuration: number;
  readonly #commands: Redis;
  readonly #listener: Redis;
  readonly #worker: Worker<CallData, Finished, string>;
  readonly #lockWatch: ReturnType<typeof setInterval>;
  /** Closed on a lost connection: no connection tries Redis again. */
  #stopping = false;

  constructor(tools: Iterable<Tool>, options: WorkerOptions) {
    this.name = options.queue ?? DEFAULT_QUEUE;
    this.signer = options.secret === undefined ? undefined : new FleetSigner(options.secret);
    for (const tool of tools) this.tools.set(tool.name, tool);
    this.#lockDuration = options.lockDuration ?? FLEET_LOCKS.lockDuration;
    const redis = redisOptionsOf(options.connection, () => this.#stopping);
    this.#commands = new Redis(redis);
    this.#listener = new Redis(redis);
    this.#worker = new Worker(
      this.name,
      // Two parameters, no signal: BullMQ then makes no AbortController of its own per job (it
      // aborts one only on its cancelJob, which the fleet does not call); the call is stopped by
      // the fleet's cancellations and lock watch (fleet-stop.ts).
      (job, token) => this.#process(job, token),
      {
        connection: redis as ConnectionOptions,
        concurrency: options.concurrency ?? 1,
        lockDuration: this.#lockDuration,
        stalledInterval: options.stalledInterval ?? FLEET_LOCKS.stalledInterval,
      },
    );
    const emitters = [this.#worker, this.#listener, this.#commands] as Emitter[];
    reportFaults(this.name, options, emitters, this.#listener);
    this.#watchLocks();
    this.#lockWatch = setInterval(() => this.#checkLocks(), this.#lockDuration / 8);
    this.#lockWatch.unref();
    this.#listener.on('message', (channel: string, jobId: string) => {
      if (channel === answersChannel(this.name)) void this.readAnswers(jobId);
      else this.#stop(jobId); // its dispatcher cancelled the call
    });
  }

  /** Resolves once the worker listens and takes jobs. */
  async start(): Promise<void> {
    await this.#listener.subscribe(cancelChannel(this.name), answersChannel(this.name));
    await this.#worker.waitUntilReady();
  }

  get running(): number {
    return this.#calls.size;
  }

  async #process(job: Job<CallData, Finished, string>, token?: string): Promise<Finished> {
    const call = new WorkerCall(this, job, token);
    this.#calls.set(call.jobId, call);
    this.#renewed.set(call.jobId, Date.now());
    try {
      return await call.run();
    } finally {
      this.#calls.delete(call.jobId);
      this.#renewed.delete(call.jobId);
    }
  }

  #watchLocks(): void {
    this.#worker.on('locksRenewed', ({ jobIds }: { jobIds: string[] }) => {
      const now = Date.now();
      for (const jobId of jobIds) if (this.#renewed.has(jobId)) this.#renewed.set(jobId, now);
    });
    // Renewal refused: another worker may hold the job already.
    this.#worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const jobId of jobIds) this.#stop(jobId);
    });
  }

  /** Stops the calls whose lock has gone unrenewed for three quarters of `lockDuration`. */
  #checkLocks(): void {
    const limit = Date.now() - (this.#lockDuration * 3) / 4;
    for (const [jobId, at] of this.#renewed)
      // Its lock went unrenewed too long: another worker may take the job.
      if (at < limit) this.#stop(jobId);
  }

  /** Stops the call of `jobId`, if it runs here (see fleet-stop.ts). */
  #stop(jobId: string): void {
    this.#calls.get(jobId)?.stop();
  }

  /** Reads the answers that came for `jobId`, handing each to its question. */
  async readAnswers(jobId: string): Promise<void> {
    const open = this.#calls.get(jobId)?.asking;
    if (open === undefined) return;
    for (;;) {
      const text = await this.#commands.lpop(answersKey(this.name, jobId)).catch(() => null);
      if (text === null) return;
      try {
        const { key, answer } = JSON.parse(text) as { key: string; answer: ElicitResult };
        open.get(key)?.(answer);
        open.delete(key);
      } catch {
        // Not an answer this fleet wrote: skipped.
      }
    }
  }

  /** See {@link FleetWorker.close}. */
  async close(force = false): Promise<void> {
    clearInterval(this.#lockWatch);
    // Redis away: nothing can be handed back or written, and only BullMQ's forced close does not
    // wait on Redis (its graceful one waits for a reply that does not come).
    const away = isLost(this.#commands);
    if (force && !away) await this.#handBack();
    if (away) this.#stopAll();
    await closeWithout(
      this.#commands,
      (async () => {
        await this.#worker.close(force || away);
        await this.#listener.quit().catch(() => undefined);
        await this.#commands.quit().catch(() => undefined);
      })(),
      () => {
        this.#stopping = true;
        // BullMQ's own connections are left to end at their next try (which `stopping` turns
        // down): its close then goes on and stops its timers. Disconnected, they would not end.
        this.#listener.disconnect();
        this.#commands.disconnect();
      },
    );
  }

  /** Stops every call running here. */
  #stopAll(): void {
    for (const call of this.#calls.values()) call.stop();
  }

  /** Cancels the running calls; each hands its job back to the queue. */
  async #handBack(): Promise<void> {
    this.handingBack = true;
    // Paused first: BullMQ then takes no further job, not even the one handed back (it fetches
    // the next job as a call ends, and the next would be that one).
    await this.#worker.pause(true);
    this.#stopAll();
    // The calls stopped hand their jobs back (a moment: their tools' teardown, one write; none
    // while Redis is away).
    const until = Date.now() + 5_000;
    while (this.running > 0 && Date.now() < until && !isLost(this.#commands))
      await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
