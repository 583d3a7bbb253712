/**
 * `agenttool serve` on stdio without `--mcp`: the bundled tools, with `initialize` answered before
 * the engine is loaded. An MCP host starts a server per session and waits for that answer, so the
 * Server is made here from the SDK alone, declaring what createMcpServer declares for a fixed list
 * of local tools (`tools: {}`, no logging, no tasks); rxjs, the call router and the tools are
 * loaded when a request first needs them (`tools/list`, `tools/call`), and answer from then on as
 * createMcpServer's own handlers do (`toolAnswers`). What it costs: BENCHMARKS.md, cold start.
 *
 * @module
 */
import { Server } from '@modelcontextprotocol/server';
import type { ToolAnswers } from '../adapters/mcp-server/tool-answers.js';
import { connectStdio } from '../adapters/mcp-server/stdio-connection.js';
import { reapShells } from './process-groups.js';
import { untilSignal } from './until-signal.js';

// The SDK the engine will load is looked for now, so that a missing package is said at start
// (cli/mcp-sdk.ts), as when it is loaded at once, rather than at the first call.
for (const loadedLater of [
  '@modelcontextprotocol/ext-tasks/core/v1',
  '@modelcontextprotocol/ext-tasks/core/v2',
])
  import.meta.resolve(loadedLater);

/** The name and version `serve` gives on initialize. */
export const INFO = { name: 'agenttool', version: '0.1.0' };

/** The engine's modules, loading or loaded; undefined until a request first needs them. */
let engine:
  | Promise<
      [typeof import('../adapters/mcp-server/tool-answers.js'), typeof import('./tools/index.js')]
    >
  | undefined;

/** A Server of the bundled tools whose engine is loaded on its first `tools/*` request. */
export function bundledServer(): Server {
  const server = new Server(INFO, { capabilities: { tools: {} } });
  let answers: ToolAnswers | undefined;
  const loaded = async (): Promise<ToolAnswers> => {
    engine ??= Promise.all([
      import('../adapters/mcp-server/tool-answers.js'),
      import('./tools/index.js'),
    ]);
    const [{ toolAnswers }, { bundledTools }] = await engine;
    return (answers ??= toolAnswers(server, bundledTools));
  };
  server.setRequestHandler('tools/list', async () => (await loaded()).list());
  server.setRequestHandler('tools/call', async (request, ctx) =>
    (await loaded()).call(request, ctx),
  );
  return server;
}

/**
 * Serves the bundled tools on stdio until the client goes or a signal comes; on the way out, the
 * process groups its bash calls started are killed. When stdin ends while the engine loads, the
 * requests waiting on it are answered before the connection closes.
 */
export async function serveCommand(): Promise<number> {
  const server = connectStdio(bundledServer, () => engine);
  await untilSignal(server.closed);
  reapShells();
  await server.close().catch(() => undefined);
  return 0;
}
