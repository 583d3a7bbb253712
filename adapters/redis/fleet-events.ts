/**
 * The reader of a fleet queue's event stream (BullMQ's `bull:<queue>:events`), in place of
 * BullMQ's QueueEvents: that one parses each entry as it reads it and stops reading for good at
 * the first that is not JSON, which would leave every call waiting. Here an entry is handed over
 * as the text it is, for the call it names to check (fleet-message.ts); one malformed entry
 * concerns its job alone.
 *
 * @module
 */
import type { Redis } from 'ioredis';

/** An entry of the stream: its fields, as text, keyed by name. */
export type FleetEvent = Readonly<Record<string, string>>;

/** How long (ms) one read blocks before it is made again. */
const BLOCK_MS = 5_000;

const pause = (ms: number): Promise<null> =>
  new Promise((resolve) => setTimeout(() => resolve(null), ms).unref());

/** Reads a queue's event stream on a connection of its own, until closed. */
export class FleetEvents {
  readonly #connection: Redis;
  readonly #key: string;
  readonly #handle: (event: FleetEvent) => void;
  #closed = false;
  #last = '$';
  /** Resolves once the reader knows where the stream stands: no later entry is missed. */
  readonly ready: Promise<void>;

  /** Starts reading; `handle` is given each entry (a throw from it is its own, and ignored). */
  constructor(connection: Redis, queue: string, handle: (event: FleetEvent) => void) {
    this.#connection = connection;
    this.#key = `bull:${queue}:events`;
    this.#handle = handle;
    this.ready = this.#start();
    this.ready.then(() => this.#read()).catch(() => undefined);
  }

  async #start(): Promise<void> {
    const newest = await this.#connection.xrevrange(this.#key, '+', '-', 'COUNT', 1);
    this.#last = newest[0]?.[0] ?? '0';
  }

  async #read(): Promise<void> {
    while (!this.#closed) {
      const read = await this.#connection
        .xread('BLOCK', BLOCK_MS, 'STREAMS', this.#key, this.#last)
        // Redis away: the connection queues the read until it is back; a read that fails at
        // once (the connection ended) is not made again at once.
        .catch(() => (this.#closed ? null : pause(200)));
      for (const [, entries] of read ?? [])
        for (const [id, fields] of entries) {
          this.#last = id;
          if (!this.#closed) this.#deliver(fields);
        }
    }
  }

  #deliver(fields: string[]): void {
    const event: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) event[fields[i]!] = fields[i + 1]!;
    try {
      this.#handle(event);
    } catch {
      // A handler's fault is its call's, not the reader's.
    }
  }

  /** Stops reading (the connection is the caller's to close). */
  close(): void {
    this.#closed = true;
  }
}
