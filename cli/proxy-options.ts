/**
 * What `agenttool serve --mcp` takes from its upstream servers beyond their tools: the
 * capabilities it declares as they do, and their answer to a call of a tool it does not serve.
 * See docs/mcp.md, "A proxy that changes nothing".
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import type { McpRemote } from '../adapters/mcp-client/index.js';
import type { McpServerOptions } from '../adapters/mcp-server/create-mcp-server.js';
import type { McpServerSpec } from './args.js';

/**
 * `logging` when an upstream declares it, `tools.listChanged` when an upstream does: the proxy
 * honours both (it passes log messages and list changes on). It declares no `resources`,
 * `prompts` or `completions`: it serves tools only.
 */
export function declaredOf(
  remotes: readonly McpRemote[],
): NonNullable<McpServerOptions['declares']> {
  const capabilities = remotes.map((remote) => remote.client.getServerCapabilities() ?? {});
  return {
    logging: capabilities.some((c) => c.logging !== undefined),
    toolsListChanged: capabilities.some((c) => c.tools?.listChanged === true),
  };
}

/** The upstream's JSON-RPC error as the proxy's own: the same code, message and data. */
function asOwnError(err: unknown): unknown {
  const { code, message, data } = (err ?? {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  if (typeof code !== 'number' || typeof message !== 'string') return err;
  // The SDK's client puts `MCP error <code>: ` before the server's message.
  return ProtocolError.fromError(code, message.replace(/^MCP error -?\d+: /, ''), data);
}

/**
 * A call of a name no served tool has, asked of `remote` (under its own name, without the
 * `--prefix` of `spec`): its result, or its JSON-RPC error, is the client's, so an unknown tool is
 * refused in the upstream's shape (an `isError` result from some servers, `-32602` from others).
 * A name without that prefix is refused here, as `createMcpServer` refuses it.
 */
export function askUpstream(
  remote: McpRemote,
  spec: McpServerSpec,
): NonNullable<McpServerOptions['unknownTool']> {
  const prefix = spec.prefix === undefined || spec.prefix === '' ? '' : `${spec.prefix}__`;
  return async (name, args) => {
    // A name outside the server's prefix names none of its tools here: asking it would run the
    // tool of that name, served under another.
    if (!name.startsWith(prefix))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}"`);
    const remoteName = name.slice(prefix.length);
    try {
      return (await remote.client.callTool({
        name: remoteName,
        ...(args === undefined ? {} : { arguments: args }),
      })) as CallToolResult;
    } catch (err) {
      throw asOwnError(err);
    }
  };
}
