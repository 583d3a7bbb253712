/**
 * The example MCP server: `upper`, a strict `add` and `tiny_image`, over stdio by default.
 *
 *   node --import tsx examples/mcp-server.ts              # stdio, for an MCP client to start
 *   node --import tsx examples/mcp-server.ts --http 3000  # Streamable HTTP on 127.0.0.1:3000/mcp
 *
 * @module
 */
import { createMcpServer, serveHttp, serveStdio } from '../adapters/mcp-server/index.js';
import { exampleTools } from './mcp-tools.js';

const info = { name: 'agenttool-example', version: '0.1.0' };
const flag = process.argv.indexOf('--http');

if (flag === -1) {
  await serveStdio(info, exampleTools);
} else {
  const port = Number(process.argv[flag + 1] ?? 3000);
  const server = await serveHttp({ port, factory: () => createMcpServer(info, exampleTools) });
  // stderr, as stdout may be a protocol stream elsewhere; here it is just the habit.
  console.error(`serving ${exampleTools.length} tools at ${server.url}`);
  process.once('SIGINT', () => void server.close().then(() => process.exit(0)));
}
