/**
 * The POSTs of MCP 2025-11-25 that `McpHttpHandler` serves: an initialize that opens a session, a
 * session's requests, and a stateless request served on its own; each request counted as open
 * until its response closes.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestId, Server } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { CallAdmission } from './call-admission.js';
import { admitEach, admitPost } from './http-admission.js';
import { sendError, usesSession } from './http-messages.js';
import { type Admission, requestIdsOf, SessionRequests } from './session-requests.js';
import type { Entry, SessionTable } from './session-table.js';
import { markStateless } from './stateless-servers.js';

export /** A parsed POST of MCP 2025-11-25: its body, the ids of its requests, how many are calls. */
interface LegacyPost {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly body: unknown;
  readonly ids: readonly RequestId[];
  readonly calls: number;
}

/** What `SessionPosts` shares with its handler: the sessions, the admission, what is open. */
export interface SessionPostsHost {
  readonly sessions: SessionTable;
  readonly admission: CallAdmission;
  /** The Servers and transports of stateless requests being answered. */
  readonly requestEntries: Set<Entry>;
  /** The responses open now. */
  readonly responses: Set<ServerResponse>;
  readonly factory: () => Server;
  readonly newSessionId: () => string;
}

/** Serves the POSTs of MCP 2025-11-25 (see the module's comment). */
export class SessionPosts {
  constructor(private readonly host: SessionPostsHost) {}

  /**
   * A stateless POST (MCP 2025-11-25): served by a Server and transport of its own, gone once its
   * response is. A batch's calls are admitted one by one (see admitEach); a single call before
   * it is read.
   */
  async postStateless({ req, res, body, ids, calls }: LegacyPost): Promise<void> {
    const batch = Array.isArray(body);
    if (!batch && !(await admitPost(this.host.admission, res, calls, ids))) return;
    const entry = await this.open(true);
    const reused = entry.requests.reused(ids);
    if (reused !== undefined) {
      sendError(res, 400, -32600, 'Invalid Request: request id already in use', undefined, reused);
      return;
    }
    this.track(entry, res, body, batch ? admitEach(this.host.admission, res, body) : undefined);
    this.host.requestEntries.add(entry);
    res.on('close', () => {
      this.host.requestEntries.delete(entry);
      entry.server.close().catch(() => undefined);
    });
    await entry.transport.handleRequest(req, res, body);
    entry.requests.cancelledBy(body);
  }

  /** An initialize without a session id: a new session, when there is room for one. */
  async initialize({ req, res, body }: LegacyPost): Promise<void> {
    if (!this.host.sessions.makeRoom()) {
      sendError(
        res,
        503,
        -32000,
        `Service unavailable: too many sessions (${this.host.sessions.max})`,
        {
          'retry-after': String(this.host.sessions.retryAfter()),
        },
      );
      return;
    }
    this.host.sessions.opening++;
    try {
      const entry = await this.open();
      this.track(entry, res, body);
      await entry.transport.handleRequest(req, res, body);
    } finally {
      this.host.sessions.opening--;
    }
  }

  /** A POST to the session `sessionId`: its calls admitted (see `postStateless`), then served. */
  async postToSession(post: LegacyPost, sessionId: string): Promise<void> {
    const { req, res, body, ids, calls } = post;
    const entry = this.host.sessions.get(sessionId);
    if (entry === undefined) {
      sendError(res, 404, -32001, 'Session not found');
      return;
    }
    const reused = entry.requests.reused(ids);
    if (reused !== undefined) {
      sendError(res, 400, -32600, 'Invalid Request: request id already in use', undefined, reused);
      return;
    }
    if (usesSession(body)) entry.used = true;
    const batch = Array.isArray(body);
    if (!batch && !(await admitPost(this.host.admission, res, calls, ids))) return;
    this.track(entry, res, body, batch ? admitEach(this.host.admission, res, body) : undefined);
    await entry.transport.handleRequest(req, res, body);
    // The requests it cancels are aborted now, and will never be answered.
    entry.requests.cancelledBy(body);
  }

  /** A Server and its transport: a session's, or a stateless request's alone. */
  private async open(stateless = false): Promise<Entry> {
    const server = this.host.factory();
    if (stateless) markStateless(server);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport(
      stateless
        ? { sessionIdGenerator: undefined }
        : {
            sessionIdGenerator: this.host.newSessionId,
            onsessioninitialized: (id) => {
              this.host.sessions.set(id, entry);
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
      if (id !== undefined) this.host.sessions.forget(id, entry);
    };
    await server.connect(transport);
    entry.requests.admitBatchCalls();
    return entry;
  }

  /**
   * Counts the request as open until its response closes, and the requests of its body as in
   * flight, a batch's calls with their admissions.
   */
  track(
    entry: Entry,
    res: ServerResponse,
    body: unknown,
    admissions?: ReadonlyMap<RequestId, Admission>,
  ): void {
    entry.open++;
    // A POST with requests: what close() waits for once it has answered them.
    if (requestIdsOf(body).length > 0) this.host.responses.add(res);
    const closed = entry.requests.posted(body === undefined ? [] : body, admissions);
    res.on('close', () => {
      this.host.responses.delete(res);
      entry.open--;
      entry.lastSeen = Date.now();
      closed(res.writableFinished);
    });
  }
}
