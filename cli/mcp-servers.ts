/** Starting (or reaching) the MCP servers named with `--mcp` / `--mcp-url` and consuming their tools. */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  McpLogMessage,
  McpRemote,
  McpRoot,
  McpRoots,
  McpTransport,
} from '../adapters/mcp-client/index.js';
import type { Elicitor, Tool } from '../index.js';
import { oneLine } from '../lib/errors.js';
import { FUNCTION_NAME } from '../lib/tool-set.js';
import type { McpServerSpec } from './args.js';
import { MCP_CLIENT_SDK, withMcpSdk } from './mcp-sdk.js';
import { notice } from './notices.js';
import { UsageError } from './usage-error.js';
import { visible } from './views/visible.js';

/** How a server is named in messages: its command line or its URL. */
export function describeServer(spec: McpServerSpec): string {
  return spec.url !== undefined
    ? `--mcp-url ${spec.url}`
    : `--mcp ${[spec.command, ...spec.args].join(' ')}`;
}

/** The user's environment as strings, with the server's own `--env` variables on top. */
function environment(spec: McpServerSpec): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined) env[name] = value;
  return { ...env, ...spec.env };
}

/** The roots offered to every server: each `--root` directory, else the working directory. */
export function rootsOf(dirs: readonly string[]): McpRoot[] {
  const chosen = dirs.length === 0 ? [process.cwd()] : dirs;
  return chosen.map((dir) => {
    const path = resolve(dir);
    return { uri: pathToFileURL(path).href, name: path };
  });
}

/** The SDK's pieces a server's transport is made with, loaded once a server is named. */
interface TransportMakers {
  httpTransport: typeof import('../adapters/mcp-client/index.js').httpTransport;
  oauth: typeof import('../adapters/mcp-client/index.js').oauth;
  stdioTransport: typeof import('../adapters/mcp-stdio/index.js').stdioTransport;
}

/**
 * The transport to `spec`'s server: its URL with its `--header`s (and OAuth with `--auth`), or
 * its command with the user's environment and its `--env` variables.
 */
async function transportOf(spec: McpServerSpec, makers: TransportMakers): Promise<McpTransport> {
  const tell = (line: string): void => void process.stderr.write(`${visible(line)}\n`);
  const login =
    spec.url !== undefined && spec.auth === true
      ? // OAuth (its browser and callback server) is loaded only for a server that asks for it.
        await (await import('./oauth-login.js')).loginProvider(spec.url, tell)
      : undefined;
  return spec.url !== undefined
    ? makers.httpTransport(spec.url, {
        ...(spec.headers === undefined ? {} : { headers: spec.headers }),
        ...(login === undefined ? {} : { auth: makers.oauth(login) }),
      })
    : makers.stdioTransport({
        command: spec.command,
        args: spec.args,
        env: environment(spec),
        stderr: 'ignore',
      });
}

/**
 * Connects every server in order; on a failure, closes those already open and throws. A stdio
 * server gets the user's environment plus its `--env` variables; a URL server gets its `--header`s
 * on every request. Every server is offered `roots`: the folders given (default: the working
 * directory), or the roots a function or Observable gives (`agenttool serve` offers its clients'
 * roots, see RootsRelay). A question
 * a server asks that no single call can be told to own (a third-party server asking while several
 * calls run) goes to `questions`, or is declined without it. Each client declares URL questions
 * as well as forms. A log message a server sends outside a call goes to `relay` (`agenttool serve`
 * passes it to its clients), and is one stderr line when there is no `relay` or it returns false
 * (no client to take it).
 */
export async function connectServers(
  specs: readonly McpServerSpec[],
  roots: readonly string[] | Exclude<McpRoots, readonly McpRoot[]> = [],
  questions?: Elicitor,
  relay?: (message: McpLogMessage) => boolean,
): Promise<McpRemote[]> {
  const remotes: McpRemote[] = [];
  if (specs.length === 0) return remotes;
  // The SDK is loaded only when a server is named.
  const [{ connectMcp, httpTransport, oauth }, { stdioTransport }] = await withMcpSdk(
    '--mcp and --mcp-url',
    MCP_CLIENT_SDK,
    () =>
      Promise.all([
        import('../adapters/mcp-client/index.js'),
        import('../adapters/mcp-stdio/index.js'),
      ]),
  );
  const offered = Array.isArray(roots) ? rootsOf(roots as readonly string[]) : (roots as McpRoots);
  try {
    for (const spec of specs) {
      const transport = await transportOf(spec, { httpTransport, oauth, stdioTransport });
      const name = describeServer(spec);
      // The name the server gives itself, once connected: its log lines go under it.
      let from = '';
      // While the server is connecting, what it says waits: a server that fails to connect is said
      // once, by the error that stops the command, not also by a warning of its cause; a log line
      // waits for the server's name.
      let held: (() => string)[] | undefined = [];
      const say = (line: () => string): void => {
        if (held === undefined) notice(line());
        else held.push(line);
      };
      // A fault that fails no call (a tool left out, a malformed message): one warning line.
      const onerror = (err: Error): void =>
        say(() => `agenttool: warning: ${name}: ${visible(err.message.replace(/\s*\n\s*/g, ' '))}`);
      // A log message no call received as progress (the server's own, not a call's): one line.
      const onLog = (message: McpLogMessage): void => {
        if (message.tool === undefined && relay?.(message) !== true)
          say(() => visible(`${from}: ${message.level}: ${oneLine(message.text)}`));
      };
      try {
        remotes.push(
          await connectMcp(transport, {
            onerror,
            onLog,
            roots: offered,
            // The terminal, --answer, the web front and a served client's questions all show a
            // page's URL and its host, and open nothing by themselves.
            urlElicitation: true,
            ...(questions === undefined ? {} : { elicitor: questions }),
            ...(spec.prefix === undefined ? {} : { prefix: spec.prefix }),
          }),
        );
        const serverName = remotes.at(-1)!.serverInfo.name;
        from = serverName === '' ? 'mcp' : `mcp ${serverName}`;
        const waiting = held;
        held = undefined;
        for (const line of waiting) notice(line());
      } catch (err) {
        throw new UsageError(`${describeServer(spec)}: ${(err as Error).message}`);
      }
    }
    return remotes;
  } catch (err) {
    await closeServers(remotes);
    throw err;
  }
}

/** Closes every remote, ignoring failures: the CLI is on its way out. */
/**
 * The remote tools a model can be offered: a name the Responses API refuses (over 64 characters,
 * or with characters such as `.` or `/` that MCP allows) is left out with one warning line each,
 * so one such tool does not stop the turn.
 */
export function modelTools(remotes: readonly McpRemote[]): Tool[] {
  return remotes.flatMap((remote) =>
    remote.tools.filter((tool) => {
      if (FUNCTION_NAME.test(tool.name)) return true;
      const name = tool.name.length > 80 ? `${tool.name.slice(0, 79)}…` : tool.name;
      process.stderr.write(
        `agenttool: warning: left out tool ${visible(JSON.stringify(name))}: not a function name a model accepts (1 to 64 letters, digits, "_" and "-")\n`,
      );
      return false;
    }),
  );
}

export async function closeServers(remotes: readonly McpRemote[]): Promise<void> {
  await Promise.all(remotes.map((remote) => remote.close().catch(() => undefined)));
}
