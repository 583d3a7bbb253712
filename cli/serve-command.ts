/**
 * `agenttool serve`: the bundled tools (and those of any `--mcp` servers) served over MCP, on
 * stdio by default or on Streamable HTTP with `--http <port>`, where `--token <t>` (or the
 * AGENTTOOL_TOKEN variable) makes every request carry `Authorization: Bearer <t>`, and
 * `--allow-origin <origin>` lets pages of that origin call it from a browser (CORS).
 */
import {
  createMcpServer,
  isLoopbackHost,
  serveHttp,
  serveStdio,
} from '../adapters/mcp-server/index.js';
import { bundledTools, reapShells } from './tools/index.js';
import { ToolSet } from '../index.js';
import type { ServeArgs } from './args.js';
import { closeServers, connectServers } from './mcp-servers.js';
import { UsageError } from './usage-error.js';

const INFO = { name: 'agenttool', version: '0.1.0' };
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Resolves when `ended` does or at the first SIGINT, SIGTERM or SIGHUP (a second one exits). */
async function untilSignal(ended: Promise<void>): Promise<void> {
  let stop = (): void => undefined;
  const signalled = new Promise<void>((resolve) => (stop = resolve));
  for (const signal of SIGNALS) process.once(signal, stop);
  try {
    await Promise.race([ended, signalled]);
  } finally {
    for (const signal of SIGNALS) process.off(signal, stop);
  }
}

/**
 * Serves until stdin ends (stdio) or until SIGINT, SIGTERM or SIGHUP; resolves to the exit status.
 * On the way out, the process groups its bash calls started are killed and the `--mcp` servers
 * closed.
 */
export async function serveCommand(args: ServeArgs): Promise<number> {
  const remotes = await connectServers(args.mcp, args.roots);
  const tools = new ToolSet([...bundledTools, ...remotes.flatMap((remote) => remote.tools)]);
  // Names are checked by createMcpServer: MCP allows names (128 characters, `.`, `/`) that a
  // model's function list does not.
  if (args.http === undefined) {
    // The --mcp servers would keep the process alive if serving could not start.
    const server = await serveStdio(INFO, tools).catch(async (err: unknown) => {
      await closeServers(remotes);
      throw err;
    });
    await untilSignal(
      new Promise<void>((resolve) => {
        const previous = server.onclose;
        server.onclose = () => {
          previous?.();
          resolve();
        };
      }),
    );
    reapShells();
    await server.close().catch(() => undefined);
    await closeServers(remotes);
    return 0;
  }
  const fromEnv = process.env.AGENTTOOL_TOKEN;
  // An empty variable is unset; one with whitespace is refused below, as --token is.
  const token = args.token ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  // Asking for a network address without a token is saying so: the command warns, and serves.
  const unauthenticated = token === undefined && !isLoopbackHost(args.host);
  if (unauthenticated)
    process.stderr.write(
      `agenttool: warning: serving on ${args.host} without --token: anyone who can reach the port runs the tools\n`,
    );
  // Compiles every schema now (sessions reuse them), so a tool left out is reported at startup.
  createMcpServer(INFO, tools);
  const http = await serveHttp({
    port: args.http,
    host: args.host,
    token,
    maxSessions: args.maxSessions,
    stateless: args.stateless,
    allowedOrigins: args.allowOrigins,
    allowUnauthenticatedNetwork: unauthenticated,
    factory: () => createMcpServer(INFO, tools),
  }).catch(async (err: unknown) => {
    await closeServers(remotes);
    // Options serveHttp refuses (a token no client could send) are bad input, as a bad flag is.
    if (!(err instanceof RangeError)) throw err;
    const source = args.token === undefined ? 'AGENTTOOL_TOKEN' : '--token';
    throw new UsageError(
      err.message.startsWith('token') ? `${source}: ${err.message}` : err.message,
    );
  });
  process.stderr.write(`agenttool: serving ${tools.size} tools over MCP at ${http.url.href}\n`);
  await untilSignal(new Promise<void>(() => undefined));
  await http.close();
  reapShells();
  await closeServers(remotes);
  return 0;
}
