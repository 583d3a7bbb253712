/**
 * The MCP SDK is an optional peer of agenttool: `agenttool serve`, `--mcp` and `--mcp-url` load it
 * on demand, and say which package to install when it is missing.
 *
 * @module
 */
import { UsageError } from './usage-error.js';

/** The packages the MCP server adapter (`agenttool serve`) is built on. */
export const MCP_SERVER_SDK: readonly string[] = [
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/ext-tasks',
];

/** The packages the MCP client adapter (`--mcp`, `--mcp-url`) is built on. */
export const MCP_CLIENT_SDK: readonly string[] = ['@modelcontextprotocol/client'];

/** Whether `err` is Node's failure to find a package of the SDK. */
function sdkMissing(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.includes(`'@modelcontextprotocol/`)
  );
}

/** Which of `packages` this process cannot load. */
async function missingOf(packages: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    packages.map((name) =>
      import(name).then(
        () => true,
        (err: unknown) => !sdkMissing(err),
      ),
    ),
  );
  return packages.filter((_, i) => !found[i]);
}

/**
 * `load()`, which imports modules built on the SDK; without the SDK installed, a UsageError that
 * says what needs it (`what`) and which of its packages (`sdk`) to install, in one line.
 */
export async function withMcpSdk<T>(
  what: string,
  sdk: readonly string[],
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!sdkMissing(err)) throw err;
    const missing = await missingOf(sdk);
    throw new UsageError(
      `${what} needs the MCP SDK, an optional peer dependency of agenttool that is not installed: npm install ${(missing.length > 0 ? missing : sdk).join(' ')}`,
    );
  }
}
