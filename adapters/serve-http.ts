/**
 * `serveHttp()`: a tool set served over Streamable HTTP on its own node:http server.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpHttpHandler, type McpHttpHandlerOptions } from './mcp-http-handler.js';

/** Options of {@link serveHttp}: where to listen, and the handler's options. */
export interface ServeHttpOptions extends McpHttpHandlerOptions {
  /** The port (default 0: any free port; read the one chosen from `port` or `url`). */
  port?: number;
  /**
   * The interface to listen on (default `127.0.0.1`, this machine only). Use `0.0.0.0` to serve
   * other machines, behind whatever authenticates them: the server itself checks no credentials.
   */
  host?: string;
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

/**
 * Listens for MCP clients over Streamable HTTP, each client in its own session with its own Server
 * from `options.factory`. Resolves once listening; rejects when the port cannot be bound. This is
 * how tools run on other machines: behind an ordinary HTTP load balancer, with sticky routing on
 * the `mcp-session-id` header, since a session lives in one process.
 */
export function serveHttp(options: ServeHttpOptions): Promise<McpHttpServer> {
  const handler = new McpHttpHandler(options);
  const server = createServer((req, res) => void handler.handle(req, res));
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: new URL(`http://${shown}:${port}${options.path ?? '/mcp'}`),
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
