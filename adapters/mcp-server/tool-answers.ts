/**
 * What a server of local tools answers to `tools/list` and `tools/call` ({@link toolAnswers}), and
 * the parts of it `createMcpServer` shares: the reporter of contained faults and the session of
 * each call. Kept apart from create-mcp-server.ts, whose declarations ship with the package: these
 * name the router and the served list, which are not the package's API.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type {
  CallToolRequest,
  ListToolsResult,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { Session, Tool } from '../../lib/contract.js';
import { oneLine, SchemaError } from '../../lib/errors.js';
import { visible } from '../../lib/visible.js';
import { CallRouter } from './call-router.js';
import { isStateless } from './http/stateless-servers.js';
import { ServedList } from './served-list.js';
import type { McpServerOptions } from './server-options.js';
import { headerRules } from './server-state.js';

/**
 * The default {@link McpServerOptions.onError}: one line on stderr, starting `mcp server: ` once
 * (an error that already says it is not given it twice), its text escaped: a client's error
 * message is the peer's text, and no escape sequence in it reaches the terminal.
 */
function reportOnStderr(error: Error): void {
  const left = error instanceof SchemaError ? '; the tool is left out' : '';
  const text = oneLine(error.message);
  const line = text.startsWith('mcp server: ') ? text : `mcp server: ${text}`;
  process.stderr.write(`${visible(line)}${left}\n`);
}

/** How a server answers `tools/list` and `tools/call` (see {@link toolAnswers}). */
export interface ToolAnswers {
  list(): ListToolsResult;
  call(request: CallToolRequest, ctx: ServerContext): ReturnType<CallRouter['route']>;
}

/**
 * The answers to `tools/list` and `tools/call` of a list of local tools, for a `server` made with
 * the capabilities `createMcpServer` (create-mcp-server.ts) would declare for them (`{ tools: {} }`). `agenttool
 * serve` on stdio makes its Server before it loads the engine, so that it answers `initialize`
 * at once (cli/serve-bundled.ts), and registers these when a request first needs them.
 */
export function toolAnswers(
  server: Server,
  tools: Iterable<Tool>,
  options: McpServerOptions = {},
): ToolAnswers {
  const report = reporterOf(options);
  return answersOf(server, new ServedList(tools, options, report), options, report);
}

/** `options.onError` (stderr by default), kept from throwing. */
export function reporterOf(options: McpServerOptions): (error: Error) => void {
  const onError = options.onError ?? reportOnStderr;
  return (error) => {
    try {
      onError(error);
    } catch {
      // A reporter that throws must not turn a contained fault into a crash.
    }
  };
}

/** The answers of `server`, serving `list` (see {@link toolAnswers}). */
export function answersOf(
  server: Server,
  list: ServedList,
  options: McpServerOptions,
  report: (error: Error) => void,
): ToolAnswers {
  headerRules.set(server, () => list.current().rules);
  const router = new CallRouter(server, list, options, report, sessions(server, options));
  return { list: () => list.current().list, call: (request, ctx) => router.route(request, ctx) };
}

/**
 * The session of each call of `server`'s connection: `id` the transport's session id (or one made
 * for the connection), `client` the name and version the client gave on initialize. A stateless
 * request belongs to no session.
 */
function sessions(
  server: Server,
  options: McpServerOptions,
): (transportId: string | undefined) => Session | undefined {
  const fallbackId = options.sessionId ?? randomUUID();
  let session: Session | undefined;
  return (transportId) => {
    if (session !== undefined) return session;
    // A stateless request belongs to no session: a random id would lie about it.
    if (isStateless(server)) return undefined;
    const client = server.getClientVersion();
    const made: Session = Object.freeze(
      client === undefined
        ? { id: transportId ?? fallbackId }
        : {
            id: transportId ?? fallbackId,
            client: Object.freeze({ name: client.name, version: client.version }),
          },
    );
    // Before initialize the client is unknown; keep asking until it is.
    if (client !== undefined) session = made;
    return made;
  };
}
