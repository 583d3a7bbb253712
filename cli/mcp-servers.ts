/** Starting the MCP servers named with `--mcp` and consuming their tools. */
import type { McpRemote } from '../adapters/mcp-client/index.js';
import type { McpServerSpec } from './args.js';
import { UsageError } from './usage-error.js';

/** Connects every server in order; on a failure, closes those already open and throws. */
export async function connectServers(specs: readonly McpServerSpec[]): Promise<McpRemote[]> {
  const remotes: McpRemote[] = [];
  if (specs.length === 0) return remotes;
  // The SDK is loaded only when a server is named.
  const [{ connectMcp }, { stdioTransport }] = await Promise.all([
    import('../adapters/mcp-client/index.js'),
    import('../adapters/mcp-stdio/index.js'),
  ]);
  try {
    for (const spec of specs) {
      const transport = stdioTransport({
        command: spec.command,
        args: spec.args,
        stderr: 'ignore',
      });
      try {
        remotes.push(
          await connectMcp(transport, spec.prefix === undefined ? {} : { prefix: spec.prefix }),
        );
      } catch (err) {
        throw new UsageError(
          `--mcp ${[spec.command, ...spec.args].join(' ')}: ${(err as Error).message}`,
        );
      }
    }
    return remotes;
  } catch (err) {
    await closeServers(remotes);
    throw err;
  }
}

/** Closes every remote, ignoring failures: the host is on its way out. */
export async function closeServers(remotes: readonly McpRemote[]): Promise<void> {
  await Promise.all(remotes.map((remote) => remote.close().catch(() => undefined)));
}
