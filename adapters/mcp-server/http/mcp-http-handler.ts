/**
 * `McpHttpHandler`: Streamable HTTP with sessions, as a node:http request handler.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { RequestId } from '@modelcontextprotocol/server';
import { HttpAccess } from './http-access.js';
import { type Admission, requestIdsOf, SessionRequests } from './session-requests.js';
import { HttpCors, isPreflight } from './http-cors.js';
import { markStateless } from './stateless-servers.js';
import { CallAdmission } from './call-admission.js';
import { admitEach, admitPost } from './http-admission.js';
import { answerHealth, refuseDraining } from './http-health.js';
import { heldCallOf, paramHeaderRules, startedTaskOf, taskStoreOf } from '../server-state.js';
import { onToolListChange } from '../served-list.js';
import { CallRooms } from '../held/held-call-room.js';
import { HEADER_MISMATCH, headerMismatch } from '../../mcp-shared/mcp-param-headers.js';
import {
  openState,
  setStateSigning,
  stateKeyOf,
  type StateSigning,
} from '../held/request-state.js';
import {
  callCountOf,
  FORWARDED,
  forward,
  hasRequestState,
  headerOf,
  isInitialize,
  readBody,
  sendError,
  sendResponse,
  usesSession,
} from './http-messages.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_INIT_TIMEOUT,
  SessionTable,
  type Entry,
} from './session-table.js';

export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_INIT_TIMEOUT } from './session-table.js';

/**
 * Options of {@link McpHttpHandler}. The access rules (Host, Origin, token) are checked on every
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
   * {@link DEFAULT_SESSION_INIT_TIMEOUT}, 10 s); and when `maxSessions` are open, a new initialize
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
   * Sessions open at once, at most (default {@link DEFAULT_MAX_SESSIONS}). An initialize past it
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

/**
 * Serves MCP over Streamable HTTP with sessions: a client's initialize opens a session (its own
 * Server from the factory and its own transport, under a random session id), and its later
 * requests carry that id. Many clients are served at once, each in its own session. A client that
 * drops a POST while its call runs (closes the connection before the answer) cancels that call on
 * the server, since nothing could deliver its result any more.
 *
 * Every request passes the access rules first (see {@link McpHttpHandlerOptions}): a Host not
 * allowed or a foreign Origin is 403, a missing or wrong token 401, a body over the cap 413; a
 * refused request opens no session and runs no tool. An initialize past `maxSessions` is 503.
 *
 * Within a session, a request whose id is still in flight is refused (400, JSON-RPC error -32600
 * `request id already in use`) and the first request goes on. A request the client cancels
 * (notifications/cancelled) gets no answer, as MCP says, and the POST that carried it is closed
 * as soon as its other requests, if any, are answered: nothing stays open until the session ends.
 *
 * For a load balancer, `GET /healthz` answers 200 `ok` while the process serves, and
 * `GET /readyz` 200 `ready`, or 503 `draining` (after {@link McpHttpHandler.drain}) or `busy` (every
 * call slot taken, or `maxSessions` open). They are answered before the access rules, so a probe
 * needs no token, and they reveal nothing else: no tool, session, client or count.
 *
 * With `stateless`, there are no sessions: each POST is served on its own (see
 * {@link McpHttpHandlerOptions.stateless}), with the same access rules, and a POST dropped while
 * its call runs still cancels the call.
 *
 * Use it as the request listener of a node:http server (see `serveHttp`), or inside any framework
 * that hands over node's request and response.
 */
export class McpHttpHandler {
  private readonly sessions: SessionTable;
  private readonly path: string;
  private readonly maxBody: number;
  private readonly sweeper: ReturnType<typeof setInterval> | undefined;
  private readonly access: HttpAccess;
  /** Initialize requests being handled, whose session is not in `sessions` yet. */
  private readonly cors: HttpCors;
  private readonly admission: CallAdmission;
  /** The Servers and transports of stateless requests being answered. */
  private readonly requestEntries = new Set<Entry>();
  private draining = false;
  /** The responses open now. */
  private readonly responses = new Set<ServerResponse>();
  private readonly newSessionId: () => string;
  /** The SDK's handler of MCP 2026-07-28 requests: each one on its own, by a Server of its own. */
  private readonly modern: ReturnType<typeof createMcpHandler>;
  /** The caps of held calls and tasks (see `maxHeldCalls`, `maxTasks`). */
  private readonly rooms: CallRooms;
  /** The Server made for a modern call's Request, before the SDK's handler asks for one. */
  private readonly made = new WeakMap<Request, Server>();
  /** How this endpoint's Servers sign held calls' states, and where they say the calls are. */
  private readonly signing: StateSigning | undefined;

  /**
   * @throws RangeError for an empty token or one with whitespace, a malformed allowed host or
   *   origin, a cap below 1 byte or a `maxSessions` below 1.
   */
  constructor(private readonly options: McpHttpHandlerOptions) {
    this.path = options.path ?? '/mcp';
    this.maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
    if (!(this.maxBody >= 1)) throw new RangeError('maxBodyBytes must be at least 1');
    this.sessions = new SessionTable(
      options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      options.sessionIdleTimeout ?? 30 * 60_000,
      options.sessionInitTimeout ?? DEFAULT_SESSION_INIT_TIMEOUT,
    );
    const maxCalls = options.maxConcurrentCalls ?? Infinity;
    if (!(maxCalls >= 1)) throw new RangeError('maxConcurrentCalls must be at least 1');
    const maxQueued = options.maxQueuedCalls ?? 0;
    if (!(maxQueued >= 0)) throw new RangeError('maxQueuedCalls must be at least 0');
    this.admission = new CallAdmission(maxCalls, maxQueued);
    this.rooms = new CallRooms(options.maxHeldCalls, options.maxTasks, taskStoreOf);
    const instance = options.instance;
    if (instance !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(instance))
      throw new RangeError(
        `instance must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(instance)}`,
      );
    this.newSessionId = instance === undefined ? randomUUID : () => `${instance}.${randomUUID()}`;
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
    this.signing = signing;
    this.modern = createMcpHandler(
      (context) => {
        // A call's Server was made before, to check its headers (see postModern).
        const made =
          context?.requestInfo === undefined ? undefined : this.made.get(context.requestInfo);
        const server = made ?? options.factory();
        this.followListChanges(server);
        markStateless(server);
        if (signing !== undefined) setStateSigning(server, signing);
        return server;
      },
      { legacy: 'reject', onerror: () => undefined },
    );
    this.access = new HttpAccess(options);
    this.cors = new HttpCors(options.allowedOrigins);
    const every = this.sessions.sweepEvery;
    if (every !== Infinity && options.stateless !== true) {
      this.sweeper = setInterval(() => this.sessions.sweep(), every);
      this.sweeper.unref();
    }
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Tool calls running now (see {@link McpHttpHandlerOptions.maxConcurrentCalls}). */
  get activeCalls(): number {
    return this.admission.active;
  }

  /**
   * Whether a balancer should send this instance more work: not draining, a call slot free and
   * room for another session. What `/readyz` answers.
   */
  get ready(): boolean {
    if (this.draining || this.admission.full) return false;
    return this.options.stateless === true || this.sessions.hasRoom();
  }

  /**
   * Stops taking work and lets running calls finish: from now on a new session, a new call and,
   * stateless, any new request is answered 503 (`Retry-After: 1`, the connection closed), and
   * `/readyz` is 503; requests of running calls (a cancellation) still go through. Resolves once
   * no call runs, or after `grace` ms (default 30 s), whichever comes first, having closed every
   * session: calls still running then are cancelled, each answered with an `isError` result
   * (`server shutting down: call "<name>" was cancelled`) before its response ends.
   */
  async drain(grace = 30_000): Promise<void> {
    this.draining = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.admission.idle(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, grace))),
    ]);
    clearTimeout(timer);
    await this.close();
  }

  /** Handles one HTTP request; never rejects (a failure is an HTTP error response). */
  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      await this.route(req, res);
    } catch (err) {
      sendError(
        res,
        500,
        -32603,
        `internal error: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };

  /** The live tool sources followed, each once, and what stops following them. */
  private readonly followed = new Map<object, () => void>();

  /**
   * Follows the live tool list `server` serves, if it serves one and it is not followed yet: each
   * change is told to every open `subscriptions/listen` stream of MCP 2026-07-28 (the SDK's
   * handler streams its `notifications/tools/list_changed`), as a 2025-11-25 session is told by
   * its own server.
   */
  private followListChanges(server: Server): void {
    const modern = this.modern as ReturnType<typeof createMcpHandler> | undefined;
    const following = onToolListChange(server, () => modern?.notify.toolsChanged());
    if (following === undefined) return;
    if (this.followed.has(following.source)) following.stop();
    else this.followed.set(following.source, following.stop);
  }

  /**
   * Closes every session and stateless request (cancelling their running calls) and stops the
   * idle sweep.
   */
  async close(): Promise<void> {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    for (const stop of this.followed.values()) stop();
    this.followed.clear();
    await this.modern.close();
    this.rooms.cancelAll();
    const entries = [...this.sessions.takeAll(), ...this.requestEntries];
    this.requestEntries.clear();
    // Each request still running is answered first (a call: `server shutting down: call "<name>"
    // was cancelled`), so that no POST ends without its answer; then the Servers close.
    await Promise.all(entries.map((entry) => entry.requests.shutDown()));
    await Promise.all(this.answering);
    await Promise.all(entries.map((entry) => entry.server.close().catch(() => undefined)));
  }

  /** The responses being written when close() answered their requests: awaited, up to 1 s. */
  private get answering(): Promise<void>[] {
    return [...this.responses].map(
      (res) =>
        new Promise<void>((resolve) => {
          if (res.writableEnded) {
            resolve();
            return;
          }
          const timer = setTimeout(resolve, 1_000);
          res.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          res.once('finish', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    );
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (answerHealth(req, res, () => ({ ready: this.ready, draining: this.draining }))) return;
    // CORS first, so that a listed origin's page can read even a refusal; a preflight carries
    // no token and runs nothing.
    const preflight = isPreflight(req);
    this.cors.decorate(req, res);
    const refusal = this.access.check(req.headers, { token: !preflight });
    if (refusal !== undefined) {
      sendError(res, refusal.status, -32000, refusal.message, refusal.headers);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== this.path) {
      res.writeHead(404).end();
      return;
    }
    if (preflight) {
      this.cors.preflight(req, res);
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    if (req.method === 'POST') {
      await this.post(req, res, sessionId);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'DELETE') {
      res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
      return;
    }
    if (this.options.stateless === true) {
      sendError(res, 405, -32000, 'Method not allowed: this server is stateless (no sessions)', {
        allow: 'POST',
      });
      return;
    }
    const entry = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (entry === undefined) {
      sendError(res, sessionId === undefined ? 400 : 404, -32001, 'Session not found');
      return;
    }
    if (this.draining && req.method === 'GET') {
      refuseDraining(res);
      return;
    }
    entry.used = true;
    this.track(entry, res, undefined);
    await entry.transport.handleRequest(req, res);
  }

  private async post(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | undefined,
  ): Promise<void> {
    const text = await readBody(req, this.maxBody);
    if (text === undefined) {
      // The rest of the body is not read: the connection closes after the answer.
      sendError(res, 413, -32600, `request body larger than ${this.maxBody} bytes`, {
        connection: 'close',
      });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      sendError(res, 400, -32700, 'Parse error');
      return;
    }
    const ids = requestIdsOf(body);
    const calls = callCountOf(body);
    const era = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headerOf(req, 'mcp-protocol-version'),
      mcpMethodHeader: headerOf(req, 'mcp-method'),
      mcpNameHeader: headerOf(req, 'mcp-name'),
      body,
    });
    if (era.kind !== 'legacy') {
      await this.postModern(req, res, text, body, calls, ids);
      return;
    }
    const stateless = this.options.stateless === true;
    if (this.draining && (calls > 0 || isInitialize(body) || (stateless && ids.length > 0))) {
      refuseDraining(res, ids[0]);
      return;
    }
    // A batch's calls are admitted one by one (see admitEach); a single call before it is read.
    const batch = Array.isArray(body);
    if (stateless) {
      if (!batch && !(await admitPost(this.admission, res, calls, ids))) return;
      const entry = await this.open(true);
      const reused = entry.requests.reused(ids);
      if (reused !== undefined) {
        sendError(
          res,
          400,
          -32600,
          'Invalid Request: request id already in use',
          undefined,
          reused,
        );
        return;
      }
      this.track(entry, res, body, batch ? admitEach(this.admission, res, body) : undefined);
      // The request's Server and transport serve it alone: gone once its response is.
      this.requestEntries.add(entry);
      res.on('close', () => {
        this.requestEntries.delete(entry);
        entry.server.close().catch(() => undefined);
      });
      await entry.transport.handleRequest(req, res, body);
      entry.requests.cancelledBy(body);
      return;
    }
    let entry: Entry | undefined;
    if (sessionId !== undefined) {
      entry = this.sessions.get(sessionId);
      if (entry === undefined) {
        sendError(res, 404, -32001, 'Session not found');
        return;
      }
    } else if (isInitialize(body)) {
      if (!this.sessions.makeRoom()) {
        sendError(
          res,
          503,
          -32000,
          `Service unavailable: too many sessions (${this.sessions.max})`,
          { 'retry-after': String(this.sessions.retryAfter()) },
        );
        return;
      }
      this.sessions.opening++;
      try {
        entry = await this.open();
        this.track(entry, res, body);
        await entry.transport.handleRequest(req, res, body);
      } finally {
        this.sessions.opening--;
      }
      return;
    } else {
      sendError(res, 400, -32000, 'Bad Request: no valid session id');
      return;
    }
    const reused = entry.requests.reused(ids);
    if (reused !== undefined) {
      sendError(res, 400, -32600, 'Invalid Request: request id already in use', undefined, reused);
      return;
    }
    if (usesSession(body)) entry.used = true;
    if (!batch && !(await admitPost(this.admission, res, calls, ids))) return;
    this.track(entry, res, body, batch ? admitEach(this.admission, res, body) : undefined);
    await entry.transport.handleRequest(req, res, body);
    // The requests it cancels are aborted now, and will never be answered.
    entry.requests.cancelledBy(body);
  }

  /**
   * A POST of MCP 2026-07-28 (a request carrying `_meta["io.modelcontextprotocol/protocolVersion"]`,
   * or a modern `MCP-Protocol-Version` header): answered on its own by the SDK's handler, with a
   * Server from the factory made for it alone, as under `stateless`, whatever this handler's mode:
   * the era has no sessions. The access rules, the admission of calls and the drain apply as to any
   * POST. A client that closes the response stream before the answer cancels the call.
   */
  private async postModern(
    req: IncomingMessage,
    res: ServerResponse,
    text: string,
    body: unknown,
    calls: number,
    ids: readonly RequestId[],
  ): Promise<void> {
    const home = this.elsewhere(req, body);
    if (home !== undefined) {
      await forward(req, res, text, home);
      return;
    }
    if (this.draining && calls > 0) {
      refuseDraining(res, ids[0]);
      return;
    }
    // A call's Mcp-Param-* headers say what its arguments say, or it is refused before it waits
    // for a slot: a balancer may have routed it on them (see docs/mcp.md).
    const server = calls === 1 && !Array.isArray(body) ? this.options.factory() : undefined;
    if (server !== undefined) {
      const { name, arguments: args } = ((body as { params?: unknown }).params ?? {}) as {
        name?: unknown;
        arguments?: unknown;
      };
      const rules = typeof name === 'string' ? paramHeaderRules(server, name) : undefined;
      const mismatch =
        rules === undefined ? undefined : headerMismatch(rules, args, (h) => headerOf(req, h));
      if (mismatch !== undefined) {
        sendError(res, 400, HEADER_MISMATCH, mismatch, undefined, ids[0] ?? null);
        return;
      }
    }
    // A held call and a task run on past their request, each in a room of its own: a new call
    // that may need a full one is answered busy before it runs (see held-call-room.ts).
    const retry = calls === 1 && hasRequestState(body);
    const full = server === undefined || retry ? undefined : this.rooms.refusal(server, body);
    if (full !== undefined) {
      sendError(res, 503, -32000, full, { 'retry-after': '1' }, ids[0] ?? null);
      return;
    }
    // A call held for its client's answer gives its slot back while it waits; a retry takes one
    // while it speaks for the call. A call that became a task keeps its slot while it runs.
    const admitted = await admitPost(this.admission, res, calls, ids, (release) => {
      const held = server === undefined ? undefined : heldCallOf(server);
      if (held !== undefined) this.rooms.hold(held);
      const task = server === undefined ? undefined : startedTaskOf(server);
      if (task !== undefined) task.keepSlot(release);
      else release();
    });
    if (!admitted) return;
    const gone = new AbortController();
    const leave = (): void => {
      if (!res.writableFinished) gone.abort();
    };
    res.once('close', leave);
    if (ids.length > 0) this.responses.add(res);
    res.once('close', () => this.responses.delete(res));
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const request = new Request(new URL(req.url ?? '/', 'http://localhost'), {
      method: 'POST',
      headers,
      body: text,
      signal: gone.signal,
    });
    if (server !== undefined) this.made.set(request, server);
    const response = await this.modern.fetch(request, { parsedBody: body });
    await sendResponse(res, response);
  }

  /**
   * Where the call a retry carries on is held, when that is another instance (see
   * `McpHttpHandlerOptions.advertise`): read from a state whose signature this instance checks.
   * A request forwarded once is served here whatever it says, so that nothing goes round.
   */
  private elsewhere(req: IncomingMessage, body: unknown): string | undefined {
    const signing = this.signing;
    if (signing === undefined || req.headers[FORWARDED] !== undefined) return undefined;
    const { method, params } = (body ?? {}) as { method?: unknown; params?: unknown };
    if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
    const state = (params as { requestState?: unknown }).requestState;
    if (state === undefined) return undefined;
    const opened = openState(state, signing.key);
    if (typeof opened === 'string' || opened.home === undefined || opened.home === signing.home)
      return undefined;
    return opened.home;
  }

  /** A Server and its transport: a session's, or a stateless request's alone. */
  private async open(stateless = false): Promise<Entry> {
    const server = this.options.factory();
    if (stateless) markStateless(server);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport(
      stateless
        ? { sessionIdGenerator: undefined }
        : {
            sessionIdGenerator: this.newSessionId,
            onsessioninitialized: (id) => {
              this.sessions.set(id, entry);
            },
          },
    );
    const entry: Entry = {
      server,
      transport,
      requests: new SessionRequests(transport),
      open: 0,
      lastSeen: Date.now(),
      used: false,
    };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined) this.sessions.forget(id, entry);
    };
    await server.connect(transport);
    entry.requests.admitBatchCalls();
    return entry;
  }

  /**
   * Counts the request as open until its response closes, and the requests of its body as in
   * flight, a batch's calls with their admissions.
   */
  private track(
    entry: Entry,
    res: ServerResponse,
    body: unknown,
    admissions?: ReadonlyMap<RequestId, Admission>,
  ): void {
    entry.open++;
    // A POST with requests: what close() waits for once it has answered them.
    if (requestIdsOf(body).length > 0) this.responses.add(res);
    const closed = entry.requests.posted(body === undefined ? [] : body, admissions);
    res.on('close', () => {
      this.responses.delete(res);
      entry.open--;
      entry.lastSeen = Date.now();
      closed(res.writableFinished);
    });
  }
}
