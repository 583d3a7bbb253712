/**
 * The roots of a proxy's clients, offered to its upstream servers: how `agenttool serve --mcp`
 * lets an upstream's `roots/list` see the client's roots rather than the proxy's folder.
 *
 * @module
 */
import { SdkErrorCode, type Server } from '@modelcontextprotocol/server';
import { isStateless } from './http/stateless-servers.js';
import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import type { RelayedRoot } from '../mcp-shared/relayed-roots.js';

export type { RelayedRoot } from '../mcp-shared/relayed-roots.js';

/** Whether `capabilities` (a client's) declare `roots`. */
export function declaresRoots(capabilities: unknown): boolean {
  const roots = (capabilities as { roots?: unknown } | null | undefined)?.roots;
  return typeof roots === 'object' && roots !== null;
}

/** The servers made with a relay: their clients' roots are offered to the upstream servers. */
const relaying = new WeakSet<Server>();

/** Whether `server` was made with a {@link RootsRelay} (`createMcpServer`'s `roots`). */
export function relaysRoots(server: Server): boolean {
  return relaying.has(server);
}

/** How long each `roots/list` asked of a client waits for its answer before it is sent again (ms). */
const ASK_WAITS = [250, 500, 1_000, 2_000, 4_000, 8_000];

/** Two lists of roots are the same when their URIs and names are, in order. */
function sameRoots(a: readonly RelayedRoot[], b: readonly RelayedRoot[]): boolean {
  return (
    a.length === b.length &&
    a.every((root, i) => root.uri === b[i]!.uri && root.name === b[i]!.name)
  );
}

/**
 * The roots of the clients of the servers `createMcpServer` made with it (`{ roots }`, one server
 * per session or one for stdio), as `roots$`: an Observable to give `connectMcp` as its `roots`
 * (its latest list answers the upstream's `roots/list`, each later one is announced with
 * `notifications/roots/list_changed`).
 *
 * A client of a 2025-11-25 session that declared `roots` is asked for them (`roots/list`) once it
 * is initialized, and again on each `notifications/roots/list_changed` it sends. The roots offered
 * are those of the latest such client still connected; with none, `fallback` (the proxy's own
 * folders); nor is a client served without sessions (`serveHttp({ stateless: true })`) asked.
 *
 * A 2026-07-28 client is not asked here: that era asks a client only inside a request. When one
 * that declared `roots` calls a remote tool and the tool's server asks for roots during the call
 * (a `roots/list` request, or a `roots/list` input request in 2026-07-28), the server asks that
 * client in the call (a `roots/list` input request of its `input_required` result, see
 * held/held-calls.ts) and the upstream gets its answer (relayed-roots.ts); a client that declared
 * none leaves the upstream the roots offered here.
 */
export class RootsRelay {
  private readonly latest: BehaviorSubject<readonly RelayedRoot[]>;
  /** The servers whose clients declared roots, in the order they were initialized. */
  private readonly declaring: Server[] = [];

  /** The roots offered, as they change (equal lists in a row are one). */
  readonly roots$: Observable<readonly RelayedRoot[]>;

  constructor(private readonly fallback: readonly RelayedRoot[]) {
    this.latest = new BehaviorSubject(fallback);
    this.roots$ = this.latest.pipe(distinctUntilChanged(sameRoots));
  }

  /** Adds `server`, made by `createMcpServer` with this relay, before it connects. */
  add(server: Server): void {
    relaying.add(server);
    const initialized = server.oninitialized;
    server.oninitialized = () => {
      initialized?.();
      // A stateless request's server cannot ask its client anything, and is never closed.
      if (!declaresRoots(server.getClientCapabilities()) || isStateless(server)) return;
      this.declaring.push(server);
      this.ask(server);
    };
    server.setNotificationHandler('notifications/roots/list_changed', () => this.ask(server));
    const closed = server.onclose;
    server.onclose = () => {
      closed?.();
      this.left(server);
    };
  }

  /**
   * Asks `server`'s client for its roots, and offers them while it is the latest to declare. Over
   * Streamable HTTP a request sent before the client opened its stream for the server's own
   * requests is lost, so one unanswered is sent again, waiting twice as long each time
   * ({@link ASK_WAITS}); a client that refuses offers nothing new: the roots offered stay.
   */
  private ask(server: Server, attempt = 0): void {
    const timeout = ASK_WAITS[attempt]!;
    server.listRoots(undefined, { timeout }).then(
      ({ roots }) => {
        if (this.declaring.at(-1) !== server) return;
        this.latest.next(
          roots.map((r) => (r.name === undefined ? { uri: r.uri } : { uri: r.uri, name: r.name })),
        );
      },
      (err: unknown) => {
        const timedOut = (err as { code?: unknown }).code === SdkErrorCode.RequestTimeout;
        if (timedOut && attempt + 1 < ASK_WAITS.length && this.declaring.includes(server))
          this.ask(server, attempt + 1);
      },
    );
  }

  /** `server`'s client went: the roots of the one before it, or the fallback. */
  private left(server: Server): void {
    const at = this.declaring.indexOf(server);
    if (at === -1) return;
    this.declaring.splice(at, 1);
    if (at !== this.declaring.length) return;
    const before = this.declaring.at(-1);
    if (before === undefined) this.latest.next(this.fallback);
    else this.ask(before);
  }
}
