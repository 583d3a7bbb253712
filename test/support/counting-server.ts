/**
 * A Streamable HTTP server of one tool, `count`, that counts its executions: for the tests of who
 * may reach a server (token, Host, Origin, CORS) and of what a refused request leaves unrun.
 */
import {
  createMcpServer,
  serveHttp,
  type McpHttpServer,
  type ServeHttpOptions,
} from '../../adapters/mcp-server/index.js';
import { rawTool, textResult } from '../../index.js';

/** What a describe block's tests reach, once its `before` hook has run. */
export interface CountingServer {
  readonly http: McpHttpServer;
  /** The headers of a JSON-RPC POST from this machine: Host, Content-Type and Accept. */
  readonly headers: Record<string, string>;
  /** How many times `count` has run (a test may set it back to 0). */
  executions: number;
}

/** Registers the hooks that serve `count` as server `name` with `options`. */
export function servedCounting(
  name: string,
  options: Omit<ServeHttpOptions, 'factory'>,
): CountingServer {
  let http: McpHttpServer | undefined;
  const served = {
    executions: 0,
    get http() {
      return http!;
    },
    get headers() {
      return {
        host: `127.0.0.1:${http!.port}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
    },
  };
  const count = rawTool({
    name: 'count',
    description: 'Counts its executions.',
    execute: () => textResult(String(++served.executions)),
  });
  before(async () => {
    http = await serveHttp({
      ...options,
      factory: () => createMcpServer({ name, version: '1' }, [count]),
    });
  });
  after(() => http?.close());
  return served;
}
