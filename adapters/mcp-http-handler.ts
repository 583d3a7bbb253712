/**
 * `McpHttpHandler`: Streamable HTTP with sessions, as a node:http request handler.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link McpHttpHandler}. */
export interface McpHttpHandlerOptions {
  /**
   * Builds the Server of a new session, typically `() => createMcpServer(info, tools)`. Called once
   * per client session, so each client gets its own Server and its own `session` on the context.
   */
  factory: () => Server;
  /** The path served (default `/mcp`); anything else is 404. */
  path?: string;
  /** Largest request body accepted, in bytes (default 4 MiB); a larger one is 413. */
  maxBodyBytes?: number;
  /**
   * A session with no open request for this long (ms) is closed (default 30 minutes; 0 keeps
   * sessions until the client deletes them or the handler closes).
   */
  sessionIdleTimeout?: number;
  /**
   * Origins a browser may call from, besides loopback ones (`http://localhost:*`,
   * `http://127.0.0.1:*`, `http://[::1]:*`). A request with any other Origin is 403: this is what
   * stops a web page from reaching a server on the user's machine through DNS rebinding.
   * Requests without an Origin (every non-browser client) are not affected.
   */
  allowedOrigins?: readonly string[];
}

interface Entry {
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  open: number;
  lastSeen: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

function isInitialize(body: unknown): boolean {
  return messagesOf(body).some(
    (m) =>
      typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}

/** The ids of the requests (not notifications or responses) in a POST body. */
function requestIdsOf(body: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of messagesOf(body)) {
    if (
      typeof m !== 'object' ||
      m === null ||
      typeof (m as { method?: unknown }).method !== 'string'
    )
      continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Serves MCP over Streamable HTTP with sessions: a client's initialize opens a session (its own
 * Server from the factory and its own transport, under a random session id), and its later
 * requests carry that id. Many clients are served at once, each in its own session. A client that
 * drops a POST while its call runs (closes the connection before the answer) cancels that call on
 * the server, since nothing could deliver its result any more.
 *
 * Use it as the request listener of a node:http server (see `serveHttp`), or inside any framework
 * that hands over node's request and response.
 */
export class McpHttpHandler {
  private readonly sessions = new Map<string, Entry>();
  private readonly path: string;
  private readonly maxBody: number;
  private readonly idle: number;
  private readonly sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: McpHttpHandlerOptions) {
    this.path = options.path ?? '/mcp';
    this.maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.idle = options.sessionIdleTimeout ?? 30 * 60_000;
    if (this.idle > 0) {
      this.sweeper = setInterval(() => this.sweep(), Math.min(this.idle, 60_000));
      this.sweeper.unref();
    }
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.sessions.size;
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

  /** Closes every session (cancelling their running calls) and stops the idle sweep. */
  async close(): Promise<void> {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(entries.map((entry) => entry.server.close().catch(() => undefined)));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== this.path) {
      res.writeHead(404).end();
      return;
    }
    if (!this.originAllowed(req.headers.origin)) {
      sendError(res, 403, -32000, 'Forbidden: origin not allowed');
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
    const entry = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (entry === undefined) {
      sendError(res, sessionId === undefined ? 400 : 404, -32001, 'Session not found');
      return;
    }
    this.track(entry, res, []);
    await entry.transport.handleRequest(req, res);
  }

  private async post(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | undefined,
  ): Promise<void> {
    const text = await readBody(req, this.maxBody);
    if (text === undefined) {
      sendError(res, 413, -32600, `request body larger than ${this.maxBody} bytes`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      sendError(res, 400, -32700, 'Parse error');
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
      entry = await this.open();
    } else {
      sendError(res, 400, -32000, 'Bad Request: no valid session id');
      return;
    }
    this.track(entry, res, requestIdsOf(body));
    await entry.transport.handleRequest(req, res, body);
  }

  private async open(): Promise<Entry> {
    const server = this.options.factory();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.sessions.set(id, entry);
      },
    });
    const entry: Entry = { server, transport, open: 0, lastSeen: Date.now() };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.sessions.get(id) === entry) this.sessions.delete(id);
    };
    await server.connect(transport);
    return entry;
  }

  /** Counts the request as open until its response closes, and cancels its calls if dropped. */
  private track(entry: Entry, res: ServerResponse, requestIds: readonly (string | number)[]): void {
    entry.open++;
    res.on('close', () => {
      entry.open--;
      entry.lastSeen = Date.now();
      if (res.writableFinished) return;
      for (const requestId of requestIds) {
        const cancel: JSONRPCMessage = {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId, reason: 'client disconnected' },
        };
        entry.transport.onmessage?.(cancel);
      }
    });
  }

  private originAllowed(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.options.allowedOrigins?.includes(origin) === true) return true;
    try {
      return LOOPBACK.has(new URL(origin).hostname);
    } catch {
      return false;
    }
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idle;
    for (const [id, entry] of this.sessions) {
      if (entry.open > 0 || entry.lastSeen > cutoff) continue;
      this.sessions.delete(id);
      entry.server.close().catch(() => undefined);
    }
  }
}
