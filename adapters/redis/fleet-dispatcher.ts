/**
 * The dispatching side of a fleet (`queueTools`): the queue calls are added to, the reader of its
 * event stream, and the calls waiting on it (fleet-call.ts), each told the entries about its job.
 *
 * @module
 */
import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { Observable } from 'rxjs';
import type { Tool, ToolCall, ToolContext, ToolEvent } from '../../lib/contract.js';
import {
  closeWithout,
  DEFAULT_QUEUE,
  redisOptionsOf,
  reportFaults,
  type Emitter,
} from './fleet-connection.js';
import { FleetCall } from './fleet-call.js';
import { FleetEvents, type FleetEvent } from './fleet-events.js';
import { jobIdOf } from './fleet-job-id.js';
import type { CallData, Finished } from './fleet-message.js';
import { FleetSigner } from './fleet-signing.js';
import type { QueueToolsOptions } from './fleet.js';

/** A fleet's dispatcher: sends calls as jobs and gives each its job's end. */
export class Dispatcher {
  readonly name: string;
  /** Signs each call's job and checks each end, when the fleet has a secret. */
  readonly signer: FleetSigner | undefined;
  readonly queue: Queue<CallData, Finished, string>;
  /** Commands of the dispatcher's own: cancellations, answers. */
  readonly publisher: Redis;
  /** Resolves once the event stream is read: a call's job is added after. */
  readonly ready: Promise<void>;
  readonly #batch: string;
  readonly #reader: Redis;
  readonly #events: FleetEvents;
  readonly #calls = new Map<string, FleetCall>();
  /** Closed on a lost connection: no connection tries Redis again. */
  #stopping = false;
  #closed = false;

  constructor(options: QueueToolsOptions) {
    this.name = options.queue ?? DEFAULT_QUEUE;
    this.signer = options.secret === undefined ? undefined : new FleetSigner(options.secret);
    this.#batch = options.batchId ?? options.batch ?? '';
    const redis = redisOptionsOf(options.connection, () => this.#stopping);
    this.queue = new Queue(this.name, { connection: redis as ConnectionOptions });
    this.publisher = new Redis(redis);
    this.#reader = new Redis(redis);
    this.#events = new FleetEvents(this.#reader, this.name, (event) => this.#onEvent(event));
    this.ready = this.#events.ready;
    const emitters = [this.queue, this.#reader, this.publisher] as Emitter[];
    reportFaults(this.name, options, emitters, this.publisher);
    // Back after an outage: each call's job is looked at again (Redis may have come back empty,
    // or the call may have ended while the dispatcher could not hear it).
    this.publisher.once('ready', () =>
      this.publisher.on('ready', () => {
        for (const call of [...this.#calls.values()]) call.recheck();
      }),
    );
  }

  /** The batch a call's job belongs to: none for a call with an idempotency key of its own. */
  batchOf(call: ToolCall): string {
    return call.idempotencyKey === undefined ? this.#batch : '';
  }

  jobIdOf(call: ToolCall): string {
    return jobIdOf(call, this.batchOf(call));
  }

  /** `tool`'s call, run on the fleet. */
  run(tool: Tool, call: ToolCall, context: ToolContext): Observable<ToolEvent> {
    return new Observable<ToolEvent>((subscriber) => {
      if (this.#closed) {
        subscriber.error(new Error(`fleet: queue "${this.name}" is closed`));
        return;
      }
      const sent = new FleetCall(this, tool, call, context, subscriber);
      sent.start();
      return () => sent.cancel();
    });
  }

  watch(call: FleetCall): void {
    this.#calls.set(call.jobId, call);
  }

  unwatch(call: FleetCall): void {
    if (this.#calls.get(call.jobId) === call) this.#calls.delete(call.jobId);
  }

  #onEvent(event: FleetEvent): void {
    const jobId = event.jobId;
    if (jobId !== undefined) this.#calls.get(jobId)?.onEvent(event);
  }

  /** Closes the queue's connections, without waiting for a Redis that is away. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const call of [...this.#calls.values()])
      call.fail(new Error(`fleet: queue "${this.name}" closed`));
    this.#events.close();
    // The reader is blocked in a read: a quit would wait behind it.
    this.#reader.disconnect();
    await closeWithout(
      this.publisher,
      (async () => {
        await this.queue.close();
        await this.publisher.quit().catch(() => undefined);
      })(),
      () => {
        this.#stopping = true;
        // BullMQ's own connections end at their next try (see the worker's close).
        this.publisher.disconnect();
      },
    );
  }
}
