/**
 * `agenttool serve`: the bundled tools (and those of any `--mcp` servers) served over MCP, on
 * stdio by default or on Streamable HTTP with `--http <port>`, where `--token <t>` (or the
 * AGENTTOOL_TOKEN variable) makes every request carry `Authorization: Bearer <t>`.
 */
import { createMcpServer, serveHttp, serveStdio } from '../adapters/mcp-server/index.js';
import { bundledTools } from './tools/index.js';
import { ToolSet } from '../index.js';
import type { ServeArgs } from './args.js';
import { closeServers, connectServers } from './mcp-servers.js';

const INFO = { name: 'agenttool', version: '0.1.0' };
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Serves until stdin ends (stdio) or until SIGINT/SIGTERM (HTTP); resolves to the exit status. */
export async function serveCommand(args: ServeArgs): Promise<number> {
  const remotes = await connectServers(args.mcp, args.roots);
  const tools = new ToolSet([...bundledTools, ...remotes.flatMap((remote) => remote.tools)]);
  tools.validate();
  if (args.http === undefined) {
    const server = await serveStdio(INFO, tools);
    await new Promise<void>((resolve) => {
      const previous = server.onclose;
      server.onclose = () => {
        previous?.();
        resolve();
      };
    });
    await closeServers(remotes);
    return 0;
  }
  const fromEnv = process.env.AGENTTOOL_TOKEN;
  const token =
    args.token ?? (fromEnv === undefined || fromEnv.trim() === '' ? undefined : fromEnv);
  if (token === undefined && !LOOPBACK.has(args.host))
    process.stderr.write(
      `agenttool: warning: serving on ${args.host} without --token: anyone who can reach the port runs the tools\n`,
    );
  const http = await serveHttp({
    port: args.http,
    host: args.host,
    token,
    factory: () => createMcpServer(INFO, tools),
  });
  process.stderr.write(`agenttool: serving ${tools.size} tools over MCP at ${http.url.href}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await http.close();
  await closeServers(remotes);
  return 0;
}
