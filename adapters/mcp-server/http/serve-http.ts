/**
 * `serveHttp()`: a tool set served over Streamable HTTP on its own node:http server.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { parseHost } from './http-access.js';
import { McpHttpHandler, type McpHttpHandlerOptions } from './mcp-http-handler.js';
import { existingTaskHost, type TaskOptions } from '../tasks/task-host.js';

/** Options of {@link serveHttp}: where to listen, and the handler's options. */
export interface ServeHttpOptions extends McpHttpHandlerOptions {
  /** The port (default 0: any free port; read the one chosen from `port` or `url`). */
  port?: number | undefined;
  /**
   * The interface to listen on (default `127.0.0.1`, this machine only). Use `0.0.0.0` to serve
   * other machines, and then set `token`: without one, serveHttp refuses an address that is not
   * loopback, unless {@link ServeHttpOptions.allowUnauthenticatedNetwork} says otherwise.
   */
  host?: string | undefined;
  /**
   * Serve on an address that is not loopback without a `token`, so that anyone who can reach the
   * port runs the tools (default false: such a server is refused). For a network you trust, or a
   * proxy in front that authenticates.
   */
  allowUnauthenticatedNetwork?: boolean | undefined;
  /**
   * Time (ms) a client has to send a request's headers, from the moment it connects or starts the
   * request (default 10 s); a connection still short of them is closed. This is what stops a
   * slow or silent client (slowloris) from holding a connection.
   */
  headersTimeout?: number | undefined;
  /**
   * Time (ms) a client has to send a whole request, headers and body (default 30 s; at least
   * `headersTimeout`). It bounds receiving only: a response that streams for longer (a tool
   * reporting progress over SSE, a GET stream of notifications) is never cut by it.
   */
  requestTimeout?: number | undefined;
  /** Time (ms) an idle keep-alive connection stays open after a response (default 5 s). */
  keepAliveTimeout?: number | undefined;
  /**
   * Connections open at once, at most (default 2000); a connection past it is closed at once.
   * Each session may hold a notification stream and a connection per call in flight.
   */
  maxConnections?: number | undefined;
  /**
   * How long (ms) {@link McpHttpServer.drain} lets running calls finish before it cancels them
   * (default 30 s). `agenttool serve --http` drains on SIGTERM (`--drain-grace`).
   */
  drainGrace?: number | undefined;
  /**
   * The `tasks` the factory's servers are made with (`createMcpServer(..., { tasks })`): tasks
   * run past the request that started them, so {@link McpHttpServer.drain} waits for this
   * instance's tasks too, within its grace, and what still runs then (or at `close()`) is failed
   * with a message saying the instance shut down, for its client to call again. The store stays
   * open: it is the application's to close.
   */
  tasks?: TaskOptions | undefined;
}

/** The defaults of {@link ServeHttpOptions}' connection limits. */
export const HTTP_DEFAULTS: Readonly<{
  /** {@link ServeHttpOptions.headersTimeout}: 10 s, in ms. */
  headersTimeout: number;
  /** {@link ServeHttpOptions.requestTimeout}: 30 s, in ms. */
  requestTimeout: number;
  /** {@link ServeHttpOptions.keepAliveTimeout}: 5 s, in ms. */
  keepAliveTimeout: number;
  /** {@link ServeHttpOptions.maxConnections}: 2000 connections. */
  maxConnections: number;
}> = Object.freeze({
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  maxConnections: 2_000,
});

function positive(name: keyof typeof HTTP_DEFAULTS, value: number | undefined): number {
  const chosen = value ?? HTTP_DEFAULTS[name];
  if (typeof chosen !== 'number' || !(chosen >= 1) || !Number.isFinite(chosen))
    throw new RangeError(`${name} must be a positive finite number, got ${String(value)}`);
  // node:http takes whole milliseconds.
  return Math.ceil(chosen);
}

/** A running Streamable HTTP server. */
export interface McpHttpServer {
  /**
   * Where clients connect, as text: `http://127.0.0.1:41234/mcp`. It prints as itself in a log
   * line and goes into `fetch`, a config file or a command line as it is.
   */
  readonly url: string;
  /**
   * The same address as a `URL`, the type the MCP SDK's `StreamableHTTPClientTransport` takes
   * (the MCP specification calls this address the server's MCP endpoint).
   */
  readonly endpoint: URL;
  /** The port it listens on (the one chosen, when asked for 0). */
  readonly port: number;
  /** How many client sessions are open. */
  readonly sessions: number;
  /** Whether a balancer should send it more work: what `/readyz` answers (see McpHttpHandler). */
  readonly ready: boolean;
  /** Tool calls running now. */
  readonly activeCalls: number;
  /**
   * Shuts down gently: new sessions, new calls (and, stateless, new requests) are answered 503
   * with `Retry-After` and `/readyz` turns 503, while running calls go on for up to `grace` ms
   * (default `drainGrace`, else 30 s); then every session is closed (cancelling what still runs)
   * and the server stops listening. Resolves once it has.
   */
  drain(grace?: number): Promise<void>;
  /** Closes every session (cancelling running calls), then stops listening. */
  close(): Promise<void>;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** Whether listening on `host` serves this machine alone: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
  );
}

function bracketed(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The Host values that name this server besides the loopback names: the address it listens on
 * with its port, or for a wildcard address every address of this machine and its host name.
 */
function boundHosts(host: string, port: number): string[] {
  if (!WILDCARDS.has(host)) return [`${bracketed(host)}:${port}`];
  const names = [`${hostname()}:${port}`];
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? []) names.push(`${bracketed(address.address)}:${port}`);
  return names.filter((name) => parseHost(name) !== undefined);
}

/**
 * Listens for MCP clients over Streamable HTTP, each client in its own session with its own Server
 * from `options.factory`. Resolves once listening; rejects when the port cannot be bound, or with
 * a RangeError for an empty token (or one with whitespace), a malformed allowed host, a body cap
 * below 1 byte, a `maxSessions` below 1, or a timeout or connection limit that is not positive
 * (or `requestTimeout` below `headersTimeout`), and with an Error for an address that is not
 * loopback without a `token` (unless `allowUnauthenticatedNetwork` is set), before a port is
 * taken. This is how tools run on other machines: many instances behind an ordinary HTTP load
 * balancer, either `stateless` (any instance answers any request: round-robin) or with sessions,
 * routed by the `mcp-session-id` header since a session lives in one process (see
 * docs/scaling-out.md).
 *
 * Who may connect: the server listens on loopback unless told otherwise; a request must name an
 * allowed Host (the loopback names, the address listened on with its port, `allowedHosts`), come
 * from an allowed Origin when it has one, carry the `token` when one is set, and fit in
 * `maxBodyBytes`. Anything else is refused (403, 401, 413) before a tool can run.
 *
 * What a client can hold: at most `maxSessions` sessions (default 1000; a new one replaces the
 * oldest that made no request after its initialize, else 503), at most
 * `maxConnections` connections (default 2000), `headersTimeout` (10 s) to send its headers and
 * `requestTimeout` (30 s) to send a whole request, and `keepAliveTimeout` (5 s) idle between
 * requests. Responses are not timed: a call may stream progress for as long as it runs. With
 * `maxConcurrentCalls`, calls past it wait (`maxQueuedCalls`) or are answered busy (503).
 *
 * For a load balancer: `/healthz` and `/readyz` answer without a token (see McpHttpHandler), and
 * {@link McpHttpServer.drain} shuts down without cutting running calls.
 */
export function serveHttp(options: ServeHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  let limits: Record<keyof typeof HTTP_DEFAULTS, number>;
  if (
    options.token === undefined &&
    options.allowUnauthenticatedNetwork !== true &&
    !isLoopbackHost(host)
  )
    return Promise.reject(
      new Error(
        `serveHttp: refusing to serve on ${host} without a token: anyone who can reach the port would run the tools (set token, or allowUnauthenticatedNetwork: true)`,
      ),
    );
  try {
    limits = checkedLimits(options);
  } catch (err) {
    return Promise.reject(err);
  }
  const server = createServer({
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    // How often the two timeouts above are checked: their precision.
    connectionsCheckingInterval: Math.max(
      10,
      Math.min(1_000, Math.floor(limits.headersTimeout / 4)),
    ),
  });
  server.maxConnections = limits.maxConnections;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      // Built once the port is known, since the bound address and port are allowed Hosts.
      const handler = new McpHttpHandler({
        ...options,
        allowedHosts: [...(options.allowedHosts ?? []), ...boundHosts(host, port)],
      });
      server.on('request', (req, res) => void handler.handle(req, res));
      resolve(listening(server, handler, options, host, port));
    });
  });
}

/**
 * The options checked, so that a bad one fails before a port is taken (stateless: no sweep
 * runs): the connection limits, with their defaults.
 */
function checkedLimits(options: ServeHttpOptions): Record<keyof typeof HTTP_DEFAULTS, number> {
  new McpHttpHandler({ ...options, stateless: true });
  const limits = {
    headersTimeout: positive('headersTimeout', options.headersTimeout),
    requestTimeout: positive('requestTimeout', options.requestTimeout),
    keepAliveTimeout: positive('keepAliveTimeout', options.keepAliveTimeout),
    maxConnections: positive('maxConnections', options.maxConnections),
  };
  if (limits.requestTimeout < limits.headersTimeout)
    throw new RangeError('requestTimeout must be at least headersTimeout');
  const grace = options.drainGrace;
  if (grace !== undefined && !(grace >= 0 && Number.isFinite(grace)))
    throw new RangeError(`drainGrace must be a finite number of ms, at least 0, got ${grace}`);
  return limits;
}

/** Lets this instance's tasks end within `grace` ms, then fails what still runs. */
async function settleTasks(options: ServeHttpOptions, grace: number): Promise<void> {
  const host = options.tasks === undefined ? undefined : existingTaskHost(options.tasks.store);
  if (host === undefined || host.size === 0) return;
  if (grace > 0) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      host.settled(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, grace))),
    ]);
    clearTimeout(timer);
  }
  await host.stopAll();
}

/** The running server of `serveHttp`, once `server` listens on `host`'s `port`. */
function listening(
  server: Server,
  handler: McpHttpHandler,
  options: ServeHttpOptions,
  host: string,
  port: number,
): McpHttpServer {
  const stop = (): Promise<void> =>
    new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
  const endpoint = new URL(`http://${bracketed(host)}:${port}${options.path ?? '/mcp'}`);
  return {
    url: endpoint.href,
    endpoint,
    port,
    get sessions() {
      return handler.sessionCount;
    },
    get ready() {
      return handler.ready;
    },
    get activeCalls() {
      return handler.activeCalls;
    },
    async drain(grace?: number) {
      const wait = grace ?? options.drainGrace ?? 30_000;
      const started = Date.now();
      await handler.drain(wait);
      await settleTasks(options, wait - (Date.now() - started));
      await stop();
    },
    async close() {
      await handler.close();
      await settleTasks(options, 0);
      await stop();
    },
  };
}
