/**
 * The MCP SDK is an optional peer of agenttool: `agenttool serve`, `--mcp` and `--mcp-url` load it
 * on demand, and say which package to install when it is missing.
 *
 * @module
 */
import { UsageError } from './usage-error.js';

/** The package the MCP adapters are built on. */
export const MCP_SDK = '@modelcontextprotocol/sdk';

/** Whether `err` is Node's failure to find the SDK's package. */
function sdkMissing(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.includes(`'${MCP_SDK}`)
  );
}

/**
 * `load()`, which imports modules built on the SDK; without the SDK installed, a UsageError that
 * says what needs it (`what`) and how to install it, in one line.
 */
export async function withMcpSdk<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!sdkMissing(err)) throw err;
    throw new UsageError(
      `${what} needs the MCP SDK, an optional peer dependency of agenttool that is not installed: npm install ${MCP_SDK}`,
    );
  }
}
