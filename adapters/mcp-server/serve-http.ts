/**
 * `serveHttp()`: a tool set served over Streamable HTTP on its own node:http server.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { parseHost } from './http-access.js';
import { McpHttpHandler, type McpHttpHandlerOptions } from './mcp-http-handler.js';

/** Options of {@link serveHttp}: where to listen, and the handler's options. */
export interface ServeHttpOptions extends McpHttpHandlerOptions {
  /** The port (default 0: any free port; read the one chosen from `port` or `url`). */
  port?: number;
  /**
   * The interface to listen on (default `127.0.0.1`, this machine only). Use `0.0.0.0` to serve
   * other machines, and then set `token`: without one, serveHttp refuses an address that is not
   * loopback, unless {@link ServeHttpOptions.allowUnauthenticatedNetwork} says otherwise.
   */
  host?: string;
  /**
   * Serve on an address that is not loopback without a `token`, so that anyone who can reach the
   * port runs the tools (default false: such a server is refused). For a network you trust, or a
   * proxy in front that authenticates.
   */
  allowUnauthenticatedNetwork?: boolean;
}

/** A running Streamable HTTP server. */
export interface McpHttpServer {
  /** Where clients connect, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: URL;
  /** The port it listens on (the one chosen, when asked for 0). */
  readonly port: number;
  /** How many client sessions are open. */
  readonly sessions: number;
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
 * a RangeError for an empty token, a malformed allowed host or a body cap below 1 byte, and with an
 * Error for an address that is not loopback without a `token` (unless `allowUnauthenticatedNetwork`
 * is set), before a port is taken. This is
 * how tools run on other machines: behind an ordinary HTTP load balancer, with sticky routing on
 * the `mcp-session-id` header, since a session lives in one process.
 *
 * Who may connect: the server listens on loopback unless told otherwise; a request must name an
 * allowed Host (the loopback names, the address listened on with its port, `allowedHosts`), come
 * from an allowed Origin when it has one, carry the `token` when one is set, and fit in
 * `maxBodyBytes`. Anything else is refused (403, 401, 413) before a tool can run.
 */
export function serveHttp(options: ServeHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
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
    // Checked now, so that a bad option fails before a port is taken.
    new McpHttpHandler({ ...options, sessionIdleTimeout: 0 });
  } catch (err) {
    return Promise.reject(err);
  }
  const server = createServer();
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
      resolve({
        url: new URL(`http://${bracketed(host)}:${port}${options.path ?? '/mcp'}`),
        port,
        get sessions() {
          return handler.sessionCount;
        },
        async close() {
          await handler.close();
          await new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
        },
      });
    });
  });
}
