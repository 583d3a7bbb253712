/**
 * The options of `McpHttpHandler`, and the settings it reads from them once, checked.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/server';
import { stateKeyOf, type StateSigning } from '../held/request-state.js';

/**
 * Options of `McpHttpHandler`. The access rules (Host, Origin, token) are checked on every
 * request, in that order, before its body is read; a refused request runs nothing.
 */
export interface McpHttpHandlerOptions {
  /**
   * Builds the Server of a new session, typically `() => createMcpServer(info, tools)`. Called once
   * per client session, so each client gets its own Server and its own `session` on the context.
   */
  factory: () => Server;
  /** The path served (default `/mcp`); anything else is 404. */
  path?: string | undefined;
  /**
   * Largest request body accepted, in bytes (default 4 MiB); a larger one is 413, refused from its
   * Content-Length when it declares one, otherwise as soon as that many bytes have arrived.
   */
  maxBodyBytes?: number | undefined;
  /**
   * A session with no open request for this long (ms) is closed (default 30 minutes; 0 keeps
   * sessions until the client deletes them or the handler closes).
   */
  sessionIdleTimeout?: number | undefined;
  /**
   * A session that has made no request since its initialize (nothing but `initialize` and
   * `notifications/initialized`) and has none open is closed after this long (ms; default
   * `DEFAULT_SESSION_INIT_TIMEOUT`, 10 s); and when `maxSessions` are open, a new initialize
   * takes the place of the oldest such session, which is closed. A client starts using its
   * session at once (the SDK's client lists or opens its notification stream within
   * milliseconds), so this only reclaims bare initializes: a flood of them cannot keep clients
   * out. 0 treats such sessions as any other (`sessionIdleTimeout` alone).
   */
  sessionInitTimeout?: number | undefined;
  /**
   * The bearer token every request must carry as `Authorization: Bearer <token>`. A request
   * without it, or with another, is 401 (with `WWW-Authenticate: Bearer`) and runs nothing. The
   * comparison takes the same time whatever the guess. Default: none, any caller that passes the
   * Host and Origin checks is served, which is safe on loopback alone. A token that no client
   * could send (empty, with whitespace, or with characters beyond visible ASCII) is a RangeError
   * when the handler is built.
   */
  token?: string | undefined;
  /**
   * Host header values accepted, besides the loopback names (`localhost`, `127.0.0.1`, `[::1]`,
   * any port): `name` accepts any port, `name:port` that port only; case and a trailing dot do
   * not matter. Any other Host is 403. This is what stops DNS rebinding, where a web page gets its
   * own host name to resolve to this machine: its requests carry that name. Mounted behind a
   * proxy or on a public name, list the names clients use. `serveHttp` adds the address it
   * listens on.
   */
  allowedHosts?: readonly string[] | undefined;
  /**
   * Origins a browser may call from (`https://app.example`), besides loopback ones
   * (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`) and the request's own (a page
   * served from the Host it calls). A request with any other Origin, `null` included, is 403.
   * Requests without an Origin (every non-browser client) are not affected.
   *
   * The listed origins (and only they: not loopback ones) are also answered CORS, so that a page
   * served from one can call the server with its token: a preflight gets 204 with
   * `Access-Control-Allow-Headers: Authorization, Content-Type, Mcp-Session-Id,
   * Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID`, and every answer `Access-Control-Allow-Origin` with that
   * origin and `Access-Control-Expose-Headers: Mcp-Session-Id, WWW-Authenticate`. Each entry is an
   * http(s) origin (`https://app.example`, `http://localhost:4200`); `*` is refused, and no
   * cookie is ever allowed (`Access-Control-Allow-Credentials` is never sent).
   */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * Sessions open at once, at most (default `DEFAULT_MAX_SESSIONS`). An initialize past it
   * takes the place of the oldest session that only initialized (see `sessionInitTimeout`); when
   * every session is in use it is answered 503 with a JSON-RPC error and `Retry-After` (the
   * seconds until the first session is due to close, 1 to 60), and opens nothing; open sessions
   * go on as before. Each
   * session holds a Server and its tool listing, so this bounds the memory clients can make the
   * server hold.
   */
  maxSessions?: number | undefined;
  /**
   * Serve without sessions (default false): every POST is answered on its own, by a Server from
   * the factory and a transport made for that request alone, and no `Mcp-Session-Id` is minted or
   * required. Any instance can then answer any request, which is the mode for running many
   * instances behind a round-robin load balancer. A call's progress still streams in its own
   * response; `context.session` is undefined; GET (the server's notification stream) and DELETE
   * are 405, and nothing can reach the client outside a response (so a tool cannot ask the client
   * anything mid-call: elicitation, sampling and roots need sessions). A call is cancelled by
   * dropping its request (closing the connection); a `notifications/cancelled` is a request of its
   * own, which may land on another instance, and cancels nothing. `maxSessions` and
   * `sessionIdleTimeout` do not apply.
   */
  stateless?: boolean | undefined;
  /**
   * Tool calls (`tools/call` requests) running at once, at most, across all sessions (default: no
   * limit). Past it a call waits in a queue of `maxQueuedCalls`, first come first served; when the
   * queue is full too it is answered busy at once: HTTP 503 with `Retry-After: 1` and a JSON-RPC
   * error, and nothing runs. Other requests (initialize, tools/list, notifications) are never held.
   * The calls of a JSON-RPC batch are counted one by one, in order: each past the limit waits its
   * turn or is answered busy with a JSON-RPC error in the batch's response.
   * Behind a load balancer, this is what makes one instance say it is full instead of drowning:
   * `/readyz` answers 503 while every slot is taken.
   */
  maxConcurrentCalls?: number | undefined;
  /**
   * Calls that may wait for a slot when `maxConcurrentCalls` are running (default 0: a call past
   * the limit is answered busy at once, so that the client or balancer sends it elsewhere). A
   * waiting call whose client goes away leaves the queue.
   */
  maxQueuedCalls?: number | undefined;
  /**
   * Calls of MCP 2026-07-28 this handler holds at once, at most, waiting for their clients'
   * answers to their questions (default 1000; see docs/mcp.md); closing the handler cancels them. A held call takes no slot of
   * `maxConcurrentCalls` while it waits (a retry with the answers takes one while it speaks for the
   * call), so unanswered questions never lock the instance; its question waits at most the
   * server's `questionTimeoutMs`. Past the cap, a new call from a client that answers questions is
   * answered busy before it runs: HTTP 503 with `Retry-After: 1` and a JSON-RPC error.
   */
  maxHeldCalls?: number | undefined;
  /**
   * Tasks (see `createMcpServer`'s `tasks`) running on this instance at once, at most, those
   * waiting for an answer included (default 1000). Past it, a call that would start a task is
   * answered busy before it runs, as past `maxHeldCalls`.
   */
  maxTasks?: number | undefined;
  /**
   * This instance's name among several behind a load balancer: the session ids it mints read
   * `<instance>.<random UUID>`, so that the balancer can send each session's requests to the
   * instance that holds it (an nginx `map` on `$http_mcp_session_id`; see docs/scaling-out.md).
   * 1 to 64 letters, digits, `_` or `-`; anything else is a RangeError. Default: none, the
   * ids are bare random UUIDs.
   */
  instance?: string | undefined;
  /**
   * The key (at least 32 characters) that signs the `requestState` of a held call (MCP 2026-07-28:
   * a tool that asked its client a question; see docs/mcp.md), the same on every instance behind a
   * balancer, so that any instance can check a retry's state. Default: a random key of this
   * process, which only this instance can check.
   */
  requestStateKey?: string | undefined;
  /**
   * This instance's own address for the other instances (e.g. `http://10.0.0.5:8101/mcp`), written
   * in the signed state of each call it holds. A retry that reaches another instance (a
   * round-robin balancer) is forwarded there, its answer piped back: the call runs where it began,
   * and nothing it did runs twice. Needs `requestStateKey`. Default: none, a retry is served where
   * it lands (behind a balancer, only an instance that holds the call can carry it on).
   */
  advertise?: string | undefined;
}

/** What `McpHttpHandler` reads of its options, once, checked. */
export interface HandlerSettings {
  readonly path: string;
  readonly maxBody: number;
  readonly maxCalls: number;
  readonly maxQueued: number;
  readonly newSessionId: () => string;
  /** How this endpoint's Servers sign held calls' states, and where they say the calls are. */
  readonly signing: StateSigning | undefined;
}

/**
 * The settings of `options`.
 * @throws RangeError for a cap below 1 byte, fewer than 1 call, a malformed instance id, or an
 *   `advertise` that is no http(s) URL or comes without `requestStateKey`.
 */
export function handlerSettings(options: McpHttpHandlerOptions): HandlerSettings {
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  if (!(maxBody >= 1)) throw new RangeError('maxBodyBytes must be at least 1');
  const maxCalls = options.maxConcurrentCalls ?? Infinity;
  if (!(maxCalls >= 1)) throw new RangeError('maxConcurrentCalls must be at least 1');
  const maxQueued = options.maxQueuedCalls ?? 0;
  if (!(maxQueued >= 0)) throw new RangeError('maxQueuedCalls must be at least 0');
  const instance = options.instance;
  if (instance !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(instance))
    throw new RangeError(
      `instance must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(instance)}`,
    );
  const newSessionId = instance === undefined ? randomUUID : () => `${instance}.${randomUUID()}`;
  if (options.advertise !== undefined) {
    const url = URL.canParse(options.advertise) ? new URL(options.advertise) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new RangeError(
        `advertise must be an http(s) URL, got ${JSON.stringify(options.advertise)}`,
      );
    if (options.requestStateKey === undefined)
      throw new RangeError('advertise needs requestStateKey, the same on every instance');
  }
  const signing =
    options.requestStateKey === undefined
      ? undefined
      : {
          key: stateKeyOf(options.requestStateKey),
          ...(options.advertise === undefined ? {} : { home: options.advertise }),
        };
  return { path: options.path ?? '/mcp', maxBody, maxCalls, maxQueued, newSessionId, signing };
}
