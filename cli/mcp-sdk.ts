/**
 * The MCP SDK is an optional peer of agenttool: `agenttool serve`, `--mcp` and `--mcp-url` load it
 * on demand, and say which package to install when it is missing.
 *
 * @module
 */
import { UsageError } from './usage-error.js';

/** The SDK's package the MCP server adapter (`agenttool serve`) is built on. */
export const MCP_SERVER_SDK = '@modelcontextprotocol/server';

/** The SDK's package the MCP client adapter (`--mcp`, `--mcp-url`) is built on. */
export const MCP_CLIENT_SDK = '@modelcontextprotocol/client';

/** Whether `err` is Node's failure to find a package of the SDK. */
function sdkMissing(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.includes(`'@modelcontextprotocol/`)
  );
}

/**
 * `load()`, which imports modules built on the SDK; without the SDK installed, a UsageError that
 * says what needs it (`what`) and which package to install (`sdk`), in one line.
 */
export async function withMcpSdk<T>(what: string, sdk: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!sdkMissing(err)) throw err;
    // The package Node could not find: the SDK's, or one beside it (the tasks extension's).
    const missing = /'(@modelcontextprotocol\/[^/']+)/.exec((err as Error).message)?.[1] ?? sdk;
    throw new UsageError(
      `${what} needs the MCP SDK, an optional peer dependency of agenttool that is not installed: npm install ${missing}`,
    );
  }
}
