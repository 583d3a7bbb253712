/**
 * `McpHttpHandler`: Streamable HTTP with sessions, as a node:http request handler.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import type { RequestId } from '@modelcontextprotocol/server';
import { HttpAccess } from './http-access.js';
import { SessionPosts, type LegacyPost } from './session-posts.js';
import { handlerSettings, type McpHttpHandlerOptions } from './http-handler-options.js';
import { requestIdsOf } from './session-requests.js';
import { ended } from './http-messages.js';
import { HttpCors, isPreflight } from './http-cors.js';
import { markStateless } from './stateless-servers.js';
import { CallAdmission } from './call-admission.js';
import { admitPost } from './http-admission.js';
import { answerHealth, refuseDraining } from './http-health.js';
import { heldCallOf, startedTaskOf, taskStoreOf } from '../server-state.js';
import { onToolListChange } from '../served-list.js';
import { CallRooms } from '../held/held-call-room.js';
import { HEADER_MISMATCH } from '../../mcp-shared/mcp-param-headers.js';
import { fetchRequestOf, homeElsewhere, paramHeaderMismatch } from './modern-post.js';
import { setStateSigning, type StateSigning } from '../held/request-state.js';
import {
  callCountOf,
  forward,
  hasRequestState,
  headerOf,
  isInitialize,
  readBody,
  sendError,
  sendResponse,
} from './http-messages.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_INIT_TIMEOUT,
  SessionTable,
  type Entry,
} from './session-table.js';

export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_INIT_TIMEOUT } from './session-table.js';
export type { McpHttpHandlerOptions } from './http-handler-options.js';

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
  /** The POSTs of MCP 2025-11-25: sessions, and stateless requests. */
  private readonly legacy: SessionPosts;

  /**
   * @throws RangeError for an empty token or one with whitespace, a malformed allowed host or
   *   origin, a cap below 1 byte or a `maxSessions` below 1.
   */
  constructor(private readonly options: McpHttpHandlerOptions) {
    const settings = handlerSettings(options);
    this.path = settings.path;
    this.maxBody = settings.maxBody;
    this.sessions = new SessionTable(
      options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      options.sessionIdleTimeout ?? 30 * 60_000,
      options.sessionInitTimeout ?? DEFAULT_SESSION_INIT_TIMEOUT,
    );
    this.admission = new CallAdmission(settings.maxCalls, settings.maxQueued);
    this.rooms = new CallRooms(options.maxHeldCalls, options.maxTasks, taskStoreOf);
    this.newSessionId = settings.newSessionId;
    const signing = settings.signing;
    this.signing = signing;
    this.legacy = new SessionPosts({
      sessions: this.sessions,
      admission: this.admission,
      requestEntries: this.requestEntries,
      responses: this.responses,
      factory: () => options.factory(),
      newSessionId: this.newSessionId,
    });
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
    // The responses being written when their requests were answered: awaited, up to 1 s each.
    await Promise.all([...this.responses].map((res) => ended(res, 1_000)));
    await Promise.all(entries.map((entry) => entry.server.close().catch(() => undefined)));
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
    this.legacy.track(entry, res, undefined);
    await entry.transport.handleRequest(req, res);
  }

  /** A POST: its body read and parsed, then served by its era (see `postModern`). */
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
    const post: LegacyPost = { req, res, body, ids, calls };
    if (stateless) await this.legacy.postStateless(post);
    else if (sessionId !== undefined) await this.legacy.postToSession(post, sessionId);
    else if (isInitialize(body)) await this.legacy.initialize(post);
    else sendError(res, 400, -32000, 'Bad Request: no valid session id');
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
    const home = homeElsewhere(this.signing, req, body);
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
    const mismatch = server === undefined ? undefined : paramHeaderMismatch(server, req, body);
    if (mismatch !== undefined) {
      sendError(res, 400, HEADER_MISMATCH, mismatch, undefined, ids[0] ?? null);
      return;
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
    const request = fetchRequestOf(req, text, gone.signal);
    if (server !== undefined) this.made.set(request, server);
    const response = await this.modern.fetch(request, { parsedBody: body });
    await sendResponse(res, response);
  }
}
