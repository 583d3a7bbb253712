/**
 * A `createMcpServer` serving tools with tasks held in memory, over Streamable HTTP, and a
 * `connectMcp` client of it: set up before a describe block's tests and closed after them.
 */
import { connectMcp, httpTransport, type McpRemote } from '../../adapters/mcp-client/index.js';
import {
  createMcpServer,
  memoryTaskStore,
  serveHttp,
  type McpHttpServer,
  type TaskOptions,
} from '../../adapters/mcp-server/index.js';
import type { Tool } from '../../index.js';

/** What a describe block's tests reach, once its `before` hook has run. */
export interface TaskServer {
  readonly store: ReturnType<typeof memoryTaskStore>;
  readonly http: McpHttpServer;
  readonly remote: McpRemote;
  /** The remote tool named `name`. */
  find(name: string): Tool;
}

/** Registers the hooks that serve `tools` as server `name` (tasks polled every 20 ms). */
export function servedWithTasks(name: string, tools: readonly Tool[]): TaskServer {
  const store = memoryTaskStore();
  const options: TaskOptions = { store, pollIntervalMs: 20 };
  let http: McpHttpServer | undefined;
  let remote: McpRemote | undefined;
  before(async () => {
    http = await serveHttp({
      tasks: options,
      factory: () => createMcpServer({ name, version: '1' }, [...tools], { tasks: options }),
    });
    remote = await connectMcp(httpTransport(http.url));
  });
  after(async () => {
    await remote?.close();
    await http?.close();
  });
  return {
    store,
    get http() {
      return http!;
    },
    get remote() {
      return remote!;
    },
    find: (tool) => remote!.tools.find((t) => t.name === tool)!,
  };
}
