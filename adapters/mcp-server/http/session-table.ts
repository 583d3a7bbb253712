/**
 * The sessions of `McpHttpHandler`: each one's Server, transport and requests, by session id; how
 * many may be open, which may be replaced to make room, and which have stayed idle too long.
 *
 * @module
 */
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Server } from '@modelcontextprotocol/server';
import type { SessionRequests } from './session-requests.js';

/** The default {@link McpHttpHandlerOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 1000;

/** The default {@link McpHttpHandlerOptions.sessionInitTimeout}: 10 s, in ms. */
export const DEFAULT_SESSION_INIT_TIMEOUT = 10_000;

/** A session's Server and transport, or a stateless request's alone. */
export interface Entry {
  readonly server: Server;
  readonly transport: NodeStreamableHTTPServerTransport;
  readonly requests: SessionRequests;
  open: number;
  lastSeen: number;
  /** Whether the session has made a request besides initialize and notifications/initialized. */
  used: boolean;
}

/**
 * The open sessions, by id, in the order opened, and the rules on them: at most `max` open (or
 * being opened); one that only initialized and has no request open may be replaced by a new one
 * after `initTimeout` ms (0: never replaced nor timed out that way); one with no request open
 * for `idle` ms (0: never) is closed by {@link sweep}.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Entry>();
  /** Sessions being opened (initialize in progress): counted against `max`. */
  opening = 0;

  constructor(
    readonly max: number,
    readonly idle: number,
    readonly initTimeout: number,
  ) {
    if (!(max >= 1)) throw new RangeError('maxSessions must be at least 1');
    if (!(initTimeout >= 0))
      throw new RangeError(
        `sessionInitTimeout must be a number of ms, at least 0, got ${initTimeout}`,
      );
  }

  /** How many sessions are open. */
  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Entry | undefined {
    return this.sessions.get(id);
  }

  set(id: string, entry: Entry): void {
    this.sessions.set(id, entry);
  }

  /** Forgets session `id`, if `entry` is still the one under it. */
  forget(id: string, entry: Entry): void {
    if (this.sessions.get(id) === entry) this.sessions.delete(id);
  }

  /** Every entry, forgotten: what a handler closing closes. */
  takeAll(): Entry[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    return all;
  }

  /** Whether one more session may open now, replacing one that only initialized if need be. */
  hasRoom(): boolean {
    return this.sessions.size + this.opening < this.max || this.replaceable() !== undefined;
  }

  /** Makes room for one more session: false when the table is full of sessions in use. */
  makeRoom(): boolean {
    return this.sessions.size + this.opening < this.max || this.replaceOldest();
  }

  /** The oldest session that only initialized and has no request open, if any. */
  private replaceable(): [string, Entry] | undefined {
    if (this.initTimeout <= 0) return undefined;
    for (const pair of this.sessions) if (!pair[1].used && pair[1].open === 0) return pair;
    return undefined;
  }

  /** Closes the oldest session that only initialized, to make room; false when there is none. */
  private replaceOldest(): boolean {
    const oldest = this.replaceable();
    if (oldest === undefined) return false;
    this.sessions.delete(oldest[0]);
    oldest[1].server.close().catch(() => undefined);
    return true;
  }

  /** Seconds until the first session is due to close on a timeout: 1 to 60. */
  retryAfter(): number {
    if (this.opening > 0) return 1;
    let first = Infinity;
    for (const entry of this.sessions.values()) {
      if (entry.open > 0) continue;
      const limit = this.limitOf(entry);
      if (limit > 0) first = Math.min(first, entry.lastSeen + limit);
    }
    return Math.min(60, Math.max(1, Math.ceil((first - Date.now()) / 1000)));
  }

  /** How long `entry` may stay without a request open (0: no limit). */
  private limitOf(entry: Entry): number {
    return !entry.used && this.initTimeout > 0 ? this.initTimeout : this.idle;
  }

  /** How often to {@link sweep}, in ms: a bare session goes within 1.25 times its timeout. */
  get sweepEvery(): number {
    return Math.min(
      60_000,
      this.idle > 0 ? this.idle : Infinity,
      this.initTimeout > 0 ? Math.max(5, this.initTimeout / 4) : Infinity,
    );
  }

  /** Closes every session that has stayed without a request open past its limit. */
  sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.sessions) {
      const limit = this.limitOf(entry);
      if (entry.open > 0 || limit <= 0 || entry.lastSeen > now - limit) continue;
      this.sessions.delete(id);
      entry.server.close().catch(() => undefined);
    }
  }
}
