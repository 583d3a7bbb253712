/**
 * `agenttool serve`: the bundled tools (and those of any `--mcp` servers) served over MCP, on
 * stdio by default or on Streamable HTTP with `--http <port>`, where `--token <t>` (or the
 * AGENTTOOL_TOKEN variable) makes every request carry `Authorization: Bearer <t>`,
 * `--allow-origin <origin>` lets pages of that origin call it from a browser (CORS), `--stateless`
 * serves without sessions, `--max-calls`/`--max-queued` bound the calls running and waiting, and
 * SIGTERM drains (running calls get `--drain-grace` ms to finish, new ones are refused).
 */
// The modules themselves, not the adapter's index: HTTP (the SDK's node transport, hono) is
// loaded only with --http, so that stdio answers `initialize` without it.
import {
  createMcpServer,
  type McpServerOptions,
} from '../adapters/mcp-server/create-mcp-server.js';
import { serveStdio } from '../adapters/mcp-server/serve-stdio.js';
import { memoryTaskStore, type TaskStore } from '../adapters/mcp-server/tasks/task-store.js';
import type { TaskOptions } from '../adapters/mcp-server/tasks/task-host.js';
import { ServerLogs } from '../adapters/mcp-server/server-logs.js';
import { RootsRelay } from '../adapters/mcp-server/roots-relay.js';
import { bundledTools, reapShells } from './tools/index.js';
import { ToolSet } from '../lib/tool-set.js';
import type { Tool } from '../index.js';
import { combineLatest, map, type Observable } from 'rxjs';
import type { ServeArgs } from './args.js';
import type { McpRemote } from '../adapters/mcp-client/index.js';
import { closeServers, connectServers, rootsOf } from './mcp-servers.js';
import { askUpstream, declaredOf } from './proxy-options.js';
import { UsageError } from './usage-error.js';
import { shownUrl } from './worker-command.js';
import { INFO } from './serve-bundled.js';
import { untilSignal } from './until-signal.js';

/** $AGENTTOOL_STATE_KEY, when set and not empty. */
function stateKeyFromEnv(): string | undefined {
  const key = process.env.AGENTTOOL_STATE_KEY;
  return key === undefined || key === '' ? undefined : key;
}

/** The task store `--tasks` names: memory, or the Redis at its URL (which needs ioredis). */
async function taskStoreOf(tasks: string): Promise<TaskStore> {
  if (tasks === 'memory') return memoryTaskStore();
  let redis: typeof import('../adapters/redis/index.js');
  try {
    redis = await import('../adapters/redis/index.js');
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND')
      throw new UsageError('--tasks redis://... needs the ioredis package: npm install ioredis');
    throw err;
  }
  return redis.redisTaskStore(tasks);
}

/**
 * The `--mcp` servers' instructions for the model, passed on to the clients: one server's as it
 * gave them, several servers' one after another (a blank line between), in the order of the flags.
 */
function instructionsOf(remotes: readonly McpRemote[]): string | undefined {
  const given = remotes.flatMap((remote) =>
    remote.instructions === undefined || remote.instructions === '' ? [] : [remote.instructions],
  );
  return given.length === 0 ? undefined : given.join('\n\n');
}

/**
 * Serves until stdin ends (stdio) or until SIGINT, SIGTERM or SIGHUP; resolves to the exit status.
 * On the way out, the process groups its bash calls started are killed and the `--mcp` servers
 * closed.
 */
export async function serveCommand(args: ServeArgs): Promise<number> {
  // The --mcp servers' log messages of no call go to the clients, as those servers' own would;
  // with no client connected, to stderr.
  const logs = new ServerLogs();
  // The roots the --mcp servers are offered: those of the latest client that declared roots, else
  // the --root folders (the working directory).
  const roots = new RootsRelay(rootsOf(args.roots));
  const remotes = await connectServers(
    args.mcp,
    args.mcp.length === 0 ? args.roots : roots.roots$,
    undefined,
    ({ level, logger, data }) =>
      logs.send(logger === undefined ? { level, data } : { level, logger, data }) > 0,
  );
  const tools = new ToolSet([...bundledTools, ...remotes.flatMap((remote) => remote.tools)]);
  // The --mcp servers' lists as they change: each client is told (tools/list_changed).
  const served: Iterable<Tool> | Observable<Iterable<Tool>> =
    remotes.length === 0
      ? tools
      : combineLatest(remotes.map((remote) => remote.tools$)).pipe(
          map((lists) => [...bundledTools, ...lists.flat()]),
        );
  const instructions = instructionsOf(remotes);
  // Declared as the upstreams declare them; a name no tool has is the first upstream's to refuse.
  const declares = remotes.length === 0 ? undefined : declaredOf(remotes);
  const passed: Serving['passed'] = {
    ...(instructions === undefined ? {} : { instructions }),
    ...(declares?.logging === true ? { logs } : {}),
    ...(remotes.length === 0 ? {} : { roots }),
    ...(declares === undefined
      ? {}
      : { declares, unknownTool: askUpstream(remotes[0]!, args.mcp[0]!) }),
  };
  // Names are checked by createMcpServer: MCP allows names (128 characters, `.`, `/`) that a
  // model's function list does not.
  const serving: Serving = { served, passed, remotes, size: tools.size };
  return args.http === undefined ? serveOnStdio(serving) : serveOnHttp(args, args.http, serving);
}

/** What both ways of serving serve: the tools, the server's options, the --mcp servers. */
interface Serving {
  readonly served: Iterable<Tool> | Observable<Iterable<Tool>>;
  readonly passed: Pick<
    McpServerOptions,
    'instructions' | 'logs' | 'roots' | 'declares' | 'unknownTool'
  >;
  readonly remotes: McpRemote[];
  /** How many tools there are at start. */
  readonly size: number;
}

/** Serves on stdio until the client goes or a signal comes. */
async function serveOnStdio({ served, passed, remotes }: Serving): Promise<number> {
  // The --mcp servers would keep the process alive if serving could not start.
  const server = await serveStdio(INFO, served, passed).catch(async (err: unknown) => {
    await closeServers(remotes);
    throw err;
  });
  await untilSignal(server.closed);
  reapShells();
  await server.close().catch(() => undefined);
  await closeServers(remotes);
  return 0;
}

/** Serves on Streamable HTTP at `port` until a signal: SIGTERM drains, any other closes. */
async function serveOnHttp(
  args: ServeArgs,
  port: number,
  { served, passed, remotes, size }: Serving,
): Promise<number> {
  const fromEnv = process.env.AGENTTOOL_TOKEN;
  // An empty variable is unset; one with whitespace is refused below, as --token is.
  const token = args.token ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  // Asking for a network address without a token is saying so: the command warns, and serves.
  const { isLoopbackHost, serveHttp } = await import('../adapters/mcp-server/http/serve-http.js');
  const unauthenticated = token === undefined && !isLoopbackHost(args.host);
  if (unauthenticated)
    process.stderr.write(
      `agenttool: warning: serving on ${args.host} without --token: anyone who can reach the port runs the tools\n`,
    );
  // Checks every schema now (sessions reuse the checks), so a tool left out is reported at startup.
  createMcpServer(INFO, served);
  const store = args.tasks === undefined ? undefined : await taskStoreOf(args.tasks);
  const tasks: TaskOptions | undefined =
    store === undefined
      ? undefined
      : { store, ...(args.taskLease === undefined ? {} : { leaseMs: args.taskLease }) };
  const http = await serveHttp({
    port,
    host: args.host,
    token,
    maxSessions: args.maxSessions,
    stateless: args.stateless,
    maxConcurrentCalls: args.maxCalls,
    maxQueuedCalls: args.maxQueued,
    maxHeldCalls: args.maxHeldCalls,
    maxTasks: args.maxTasks,
    drainGrace: args.drainGrace,
    instance: args.instance,
    advertise: args.advertise,
    requestStateKey: args.stateKey ?? stateKeyFromEnv(),
    allowedHosts: args.allowHosts,
    allowedOrigins: args.allowOrigins,
    allowUnauthenticatedNetwork: unauthenticated,
    ...(tasks === undefined ? {} : { tasks }),
    factory: () =>
      createMcpServer(INFO, served, {
        ...passed,
        ...(tasks === undefined ? {} : { tasks }),
        questionTimeoutMs: args.questionTimeout,
      }),
  }).catch(async (err: unknown) => {
    await closeServers(remotes);
    await store?.close();
    // Options serveHttp refuses (a token no client could send) are bad input, as a bad flag is.
    if (!(err instanceof RangeError)) throw err;
    const source = args.token === undefined ? 'AGENTTOOL_TOKEN' : '--token';
    throw new UsageError(
      err.message.startsWith('token') ? `${source}: ${err.message}` : err.message,
    );
  });
  const kept =
    args.tasks === undefined
      ? ''
      : args.tasks === 'memory'
        ? ', tasks in memory'
        : `, tasks in ${shownUrl(args.tasks)}`;
  process.stderr.write(`agenttool: serving ${size} tools over MCP at ${http.url}${kept}\n`);
  const signal = await untilSignal(new Promise<void>(() => undefined));
  if (signal === 'SIGTERM') {
    // A balancer's (or an orchestrator's) stop: let running calls finish, take no new ones.
    process.stderr.write('agenttool: SIGTERM: draining (running calls finish, new ones get 503)\n');
    await http.drain();
  } else await http.close();
  reapShells();
  await store?.close();
  await closeServers(remotes);
  return 0;
}
