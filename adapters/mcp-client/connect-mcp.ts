/**
 * `connectMcp()`: one MCP session whose tools are Tool values.
 *
 * Longer than most files here because the list's refresh bookkeeping (coalescing, `await()`, the
 * notification grace) and the connection's end are one state machine, and splitting it would put
 * half of each rule somewhere else.
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import type {
  ClientCapabilities,
  Implementation,
  LoggingMessageNotification,
  Tool as McpTool,
  VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import type { Observable } from 'rxjs';
import type { Elicitor, Replay, ResourceFunction, ResourceName, Tool } from '../../lib/contract.js';
import { describeThrown, oneLine } from '../../lib/errors.js';
import { visible } from '../../lib/visible.js';
import { CALL_TOKEN } from '../mcp-shared/call-token.js';
import { closedError, describeCause, McpCallError } from '../mcp-shared/mcp-errors.js';
import { answerQuestions, elicitationCapability } from './client-elicitation.js';
import { offerRoots, type McpRoots } from './client-roots.js';
import { CallDeadlines } from './call-deadlines.js';
import { OrderedTransport, TOO_DEEP } from './ordered-transport.js';
import { LatestValue } from './latest-value.js';
import { RefreshTracker } from './refresh-tracker.js';
import { TASKS_EXTENSION, type TaskGeneration } from './remote-task.js';
import { printableName, remoteNameProblem } from './tool-name.js';
import { listedOrdering } from './listed-ordering.js';
import { MAX_SCHEMA_DEPTH } from '../../lib/validation/json.js';
import { headerDeclarations } from '../mcp-shared/mcp-param-headers.js';
import {
  RemoteTool,
  taskSupportOf,
  type InFlightCall,
  type RemoteClaims,
  type RemoteConnection,
} from './remote-tool.js';
import { logMessage, type McpLogMessage } from './server-log.js';
import { transportPeers } from '../mcp-shared/mcp-peer.js';

/** Options of {@link connectMcp}; every field is optional. */
export interface McpClientOptions {
  /** Local names are `prefix + "__" + name`; no prefix keeps the server's names. */
  prefix?: string | undefined;
  /**
   * Tools that run alone in a batch, by remote or local name. A tool named here takes its
   * ordering from the options alone, whatever its listing hints (see `orderingHints`).
   */
  sequential?: Iterable<string> | undefined;
  /**
   * Tools whose calls detach (see `Tool.detach`), by remote or local name, besides those the
   * server lists as detached (an agenttool server does, with `_meta` `io.agenttool/detach`).
   */
  detach?: Iterable<string> | undefined;
  /**
   * Shared state the application says tools touch, two ways. A list: the key is a resource and
   * the list the tools (remote or local names) that touch it, `{ "shell:session": ["bash", "cd"] }`.
   * A function: the key is a tool (remote or local name) and the function names the resource of
   * each call from its arguments, parsed from JSON, `{ write_file: (args) => "file:" + args.path }`,
   * so writes to one file run in the model's order and writes to others alongside (see
   * {@link Tool.resource}). A tool named by a function takes it over any list that names it. A
   * tool named here takes its ordering from the options alone, whatever its listing hints (see
   * `orderingHints`); a function that returns "" lets its calls run alongside everything. These
   * resource names are the application's own: no prefix is put on them.
   */
  resources?: Readonly<Record<string, readonly string[] | ResourceFunction>> | undefined;
  /**
   * Whether a tool takes the ordering hints its server lists in its `_meta` (default true): one
   * listed sequential (`io.github.agenttool/sequential`: true) is sequential, one that lists a
   * resource (`io.github.agenttool/resource`) has it, under the `prefix` as the tool's name is
   * (`prefix__fs`; as listed without a prefix), so the same name from two prefixed servers names
   * two resources. A resource listed as `{ key, capacity }` is taken as that counted resource:
   * up to `capacity` of its calls run at once. A tool named in `sequential` or `resources` takes the
   * application's word instead; false ignores every listing's hints. A hint of the wrong kind (a
   * sequential that is not a boolean, a resource that is not a string or `{ key, capacity }`, or
   * whose name is empty, over 128 characters, or holds a control or invisible character) is
   * ignored, and said once a listing to `onerror`: `mcp: tools/list: tool "<name>": ignored _meta
   * "io.github.agenttool/resource" ...`.
   */
  orderingHints?: boolean | undefined;
  /** Tools the application says run confined: name (remote or local) → what confines them. */
  confined?: Readonly<Record<string, string>> | undefined;
  /**
   * What running a call again does, by tool (remote or local name); see {@link Tool.replay}. A
   * call of a tool said to be `'safe'` whose response broke before its answer (the connection
   * dropped, a balancer lost the instance) is sent again, up to twice, and its events go on; the
   * call of any other tool fails with one line (`... connection lost: ...; not sent again: its
   * replay is not safe`), since it may have run. Default: none is safe, as `replayOf` reads a
   * remote tool.
   */
  replay?: Readonly<Record<string, Replay>> | undefined;
  /**
   * How long (ms) a call of a tool that is not read-only waits, after its answer, for a
   * tools/list_changed notification the server has not sent yet (default 50; 0 disables). Only a
   * server that advertises listChanged and has sent at least one such notification in this
   * session is waited for; a call of any other server returns as soon as it has its answer.
   */
  notificationGrace?: number | undefined;
  /** The name and version this client gives the server (default `agenttool` and its version). */
  clientInfo?: Implementation | undefined;
  /**
   * How long (ms) a tool call may go without a word from the server (default 60000, the SDK's):
   * the clock restarts on every progress notification, so only a silent call times out, and it
   * stops while a question the server asked during the call waits for its answer (a person may
   * take longer than the timeout), starting again once it is answered. 0,
   * Infinity or anything not a positive number means no timeout; more than 2^31 - 1 (the longest a
   * timer waits) is taken as that. Opening the session and listing tools use the SDK's default.
   */
  timeout?: number | undefined;
  /**
   * Receives errors that fail no call: a malformed message, a stray notification, a tool left out
   * of the list because its name is empty, longer than 128 characters, or has control or invisible
   * characters (`mcp: tools/list: left out tool "<name>": its name ...`, once per name), or because
   * its definition nests deeper than 512 levels (`...: its definition is nested deeper than 512
   * levels`); an ordering hint of the wrong kind in a tool's `_meta` (see `orderingHints`); and
   * the records of a call dropped past the calling job's caps or refused (`mcp: call
   * "<name>": dropped <n> of the <m> records the server sent: <first reason>`, once per call; the
   * call's result stands).
   */
  onerror?: ((error: Error) => void) | undefined;
  /**
   * The roots offered to the server (MCP's `roots/list`): a list, a function asked each time, or
   * an Observable whose every new list is announced (`notifications/roots/list_changed`). Each is
   * a `file://` URI. Without it, the client declares no roots capability.
   */
  roots?: McpRoots | undefined;
  /**
   * Receives every log message the server sends (`notifications/message`), with `tool` set when a
   * call also received it as progress. MCP does not say which request a log message belongs to:
   * a message reaches a call as a progress event (the text as output, `{ level, logger, data }`
   * as details) when it carries that call's token in its `_meta` (`io.github.agenttool/call`, as
   * an agenttool server marks the messages of a call); any other message (a server's own, not a
   * call's) belongs to no call, however many run. Without `onLog`, a message no call received is
   * written to stderr as one line, so none is lost.
   */
  onLog?: ((message: McpLogMessage) => void) | undefined;
  /**
   * The server's questions (`elicitation/create`). By default the client declares the elicitation
   * capability (form mode; an accepted answer gets the schema's defaults for the fields it leaves
   * out) and asks each question through the context of the call it belongs to
   * (`context.elicit`): it shows on that call in the batch's events and the executor's `elicitor`
   * answers it, or it is declined when the executor has none; a proxy (`createMcpServer` over
   * these tools) passes it on to its own client. MCP does not say which call a question belongs
   * to: each call sends a token in its `_meta` (`io.github.agenttool/call`), which an agenttool
   * server returns with the call's questions; a question without one is the running call's when
   * exactly one call of this session runs. A question that belongs to no call (asked while none,
   * or several, run) goes to this elicitor (`call.id` is ""), or is declined without one.
   * `false`: the client declares no elicitation, and the server asks nothing.
   */
  elicitor?: Elicitor | false | undefined;
  /**
   * Declares URL-mode elicitation too (default false): the server may send the person to a page
   * (to give a credential, pay, or authorize a third party) so what they type there never passes
   * through the client. Its question reaches the call's `context.elicit` as
   * `{ mode: 'url', message, url }` (see `ElicitUrlRequest` in `agenttool`), so the application's
   * elicitor must show the full URL and its host, open it only with the person's consent, and
   * answer `accept` once they are back; the CLI, the web front and the Angular example do. A
   * server that refuses a call until a page is visited (error -32042, `URLElicitationRequired`,
   * MCP 2025-11-25) gets each page asked the same way, and the call is sent again once every page
   * was accepted, up to 3 times. Without it, a URL question is never sent.
   */
  urlElicitation?: boolean | undefined;
  /**
   * The most pages one tools/list may take (default 100): a server whose list pages on past it (a
   * new `nextCursor` each time) fails the listing with `tools/list: more than 100 pages
   * (maxListPages)`, as does a cursor it gave before (`tools/list: cursor repeats`). Below 1 or
   * NaN means the default; Infinity, no bound.
   */
  maxListPages?: number | undefined;
  /**
   * The most tools one tools/list may bring (default 10,000), over all its pages: past it the
   * listing fails with `tools/list: more than 10000 tools (maxTools)`. Below 1 or NaN means the
   * default; Infinity, no bound.
   */
  maxTools?: number | undefined;
  /**
   * Which revision of MCP to speak, as the SDK's client takes it: `{ mode: 'auto' }` asks the
   * server with `server/discover` and speaks 2026-07-28 to one that offers it, 2025-11-25 to any
   * other; `{ mode: 'legacy' }` opens with `initialize` (2025-11-25); `{ mode: { pin: '2026-07-28' } }`
   * speaks that revision or fails. Default: `auto`, except over stdio (a child process), where it
   * is `legacy`: every server that serves 2025-11-25 answers it, while a server that ignores an
   * unknown first request would keep an `auto` client waiting for its probe's timeout.
   */
  versionNegotiation?: VersionNegotiationOptions | undefined;
}

const DEFAULT_GRACE = 50;
const DEFAULT_MAX_LIST_PAGES = 100;
const DEFAULT_MAX_TOOLS = 10_000;
const DEFAULT_TIMEOUT = 60_000;
const NO_TIMEOUT = 2_147_483_647;
const CLIENT_INFO: Implementation = { name: 'agenttool', version: '0.1.0' };

/**
 * A connected MCP server: its tools as Tool values, kept current as the server changes its list.
 * Made by {@link connectMcp}. The tools are not closers: {@link McpRemote.close} ends the session
 * that serves them all.
 */
export class McpRemote {
  /** The SDK client, for what this adapter does not map (resources, prompts). */
  readonly client: Client;
  /** The server's name and version (and title, when it gave one). */
  readonly serverInfo: Implementation;
  /** The server's instructions for the model, if it gave any. */
  readonly instructions: string | undefined;
  /**
   * The revision of MCP this connection speaks: `2026-07-28` with a server that offers it
   * (`server/discover`), else the one `initialize` agreed (`2025-11-25` or earlier).
   */
  readonly protocolVersion: string;
  /**
   * The tool list: the current list on subscription, then each refreshed list (after a
   * tools/list_changed notification, or {@link McpRemote.refresh}). A tool whose definition did
   * not change keeps its Tool value. Completes when the connection closes.
   */
  readonly tools$: Observable<readonly Tool[]>;

  private closing: Promise<void> | undefined = undefined;
  private lost = false;
  private readonly list = new LatestValue<readonly Tool[]>(Object.freeze([]));
  private readonly refreshes: RefreshTracker;
  private readonly connection: RemoteConnection;
  private readonly deadlines: CallDeadlines;
  private readonly inFlight = new Set<InFlightCall>();
  private readonly sequential: ReadonlySet<string>;
  private readonly detach: ReadonlySet<string>;
  /** Remote names left out of the list (see {@link remoteNameProblem}), each reported once. */
  private readonly refused = new Set<string>();

  /** @internal Use {@link connectMcp}: the client must be connected. */
  constructor(
    client: Client,
    private readonly transport: OrderedTransport,
    private readonly options: McpClientOptions,
    private readonly roots?: { close(): void },
    declared: { capabilities: ClientCapabilities; clientInfo: Implementation } = {
      capabilities: {},
      clientInfo: CLIENT_INFO,
    },
  ) {
    this.client = client;
    this.serverInfo = client.getServerVersion() ?? { name: '', version: '' };
    this.instructions = client.getInstructions();
    this.protocolVersion = client.getNegotiatedProtocolVersion() ?? '';
    this.tools$ = this.list.value$;
    this.sequential = new Set(options.sequential ?? []);
    this.detach = new Set(options.detach ?? []);
    const listChanged = client.getServerCapabilities()?.tools?.listChanged === true;
    const grace = options.notificationGrace ?? DEFAULT_GRACE;
    this.refreshes = new RefreshTracker(() => this.fetch(), listChanged ? grace : 0);
    const timeout = options.timeout ?? DEFAULT_TIMEOUT;
    this.deadlines = new CallDeadlines(
      timeout > 0 && Number.isFinite(timeout) ? Math.min(timeout, NO_TIMEOUT) : Infinity,
      this.inFlight,
    );
    const peer = transportPeers.get(transport.inner) ?? {};
    this.connection = {
      client,
      peer: () => ({
        ...peer,
        protocolVersion: this.protocolVersion,
        sessionId: transport.sessionId,
      }),
      router: transport,
      deadlines: this.deadlines,
      inFlight: this.inFlight,
      isClosed: () => this.closed,
      lostError: (tool) => this.lostError(tool),
      settle: (readOnly) => this.refreshes.afterCall(readOnly),
      serverName: this.serverInfo.name === '' ? 'mcp' : this.serverInfo.name,
      report: (error) => options.onerror?.(error),
      modern: client.getProtocolEra() === 'modern',
      tasks: taskGenerationOf(client),
      taskRequest: (method, params) =>
        transport.request(
          method,
          client.getProtocolEra() === 'modern'
            ? {
                ...params,
                _meta: {
                  [PROTOCOL_VERSION_META_KEY]: this.protocolVersion,
                  [CLIENT_CAPABILITIES_META_KEY]: declared.capabilities,
                  [CLIENT_INFO_META_KEY]: declared.clientInfo,
                },
              }
            : params,
        ),
      capabilities: declared.capabilities as Record<string, unknown>,
      mirrorsHeaders: client.getProtocolEra() === 'modern' && transport.hasPerRequestStream,
      urlQuestions: options.urlElicitation === true && options.elicitor !== false,
    };
    // A notification that came before this point is reflected by the first list, fetched after.
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (!this.closed) this.refreshes.notified();
    });
    client.setNotificationHandler('notifications/message', (notification) =>
      this.log(notification.params),
    );
    if (options.elicitor !== false)
      answerQuestions(client, this.inFlight, options.elicitor, (error) => options.onerror?.(error));
    client.onclose = () => this.disconnected();
  }

  /** The latest tool list; read-only. */
  get tools(): readonly Tool[] {
    return this.list.value;
  }

  /** Whether the connection is closed, by {@link McpRemote.close} or by the server going away. */
  get closed(): boolean {
    return this.closing !== undefined || this.lost;
  }

  /** The local name of the server's tool `remoteName`. */
  name(remoteName: string): string {
    const prefix = this.options.prefix;
    return prefix === undefined || prefix === '' ? remoteName : `${prefix}__${remoteName}`;
  }

  /** Lists the tools again; resolves with a list fetched after this call. */
  refresh(): Promise<readonly Tool[]> {
    if (this.closed) return Promise.reject(closedError());
    return this.refreshes.refresh().then(() => this.tools);
  }

  /**
   * Resolves with the tool list once it reflects every tools/list_changed notification received
   * before this call (at once when none is pending). Rejects when the refresh fails or the
   * connection closes first.
   */
  await(): Promise<readonly Tool[]> {
    if (this.closed) return Promise.reject(closedError());
    return this.refreshes.settled().then(() => this.tools);
  }

  /**
   * Ends the session. Every call still waiting fails at once with `mcp: connection closed`, as
   * does every later call; `tools$` completes. Resolves when the transport has closed; calling it
   * again returns the same Promise.
   */
  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.closing = Promise.resolve();
    this.end(closedError());
    this.closing = endSession(this.transport.inner)
      .then(() => this.client.close())
      .catch(() => undefined);
    return this.closing;
  }

  /** Why a waiting call failed: the application closed it, or the connection went away (and why, if known). */
  private lostError(tool: string): Error {
    if (this.closing !== undefined) return closedError(tool);
    const why = this.transport.lastError;
    const detail = why === undefined ? '' : `: ${oneLine(describeThrown(why))}`;
    return new McpCallError(
      tool,
      `mcp: call "${tool}": connection closed${detail}`,
      why,
      'connection_lost',
    );
  }

  /** The transport closed on its own: the server exited, or the transport gave up. */
  private disconnected(): void {
    if (this.closed) return;
    this.lost = true;
    for (const call of [...this.inFlight]) call.fail(this.lostError(call.tool));
    this.end(closedError());
  }

  /** A server log message: to the call it names as progress, to `onLog`, else to stderr. */
  private log(params: LoggingMessageNotification['params']): void {
    let tool: string | undefined;
    const token = params._meta?.[CALL_TOKEN];
    if (typeof token === 'string')
      for (const call of this.inFlight)
        if (call.token === token) {
          if (call.log(params)) tool = call.tool;
          break;
        }
    const onLog = this.options.onLog;
    if (onLog !== undefined) onLog(logMessage(params, tool));
    else if (tool === undefined) {
      // The server's text, its name included, shown escaped: no escape sequence reaches the
      // terminal (see lib/visible.ts).
      const message = logMessage(params, undefined);
      const from = this.serverInfo.name === '' ? 'mcp' : `mcp ${this.serverInfo.name}`;
      process.stderr.write(visible(`${from}: ${message.level}: ${oneLine(message.text)}`) + '\n');
    }
  }

  private end(reason: Error): void {
    this.roots?.close();
    this.deadlines.stop();
    const calls = [...this.inFlight];
    this.inFlight.clear();
    for (const call of calls) call.fail(reason);
    this.refreshes.close(reason);
    this.list.complete();
  }

  /**
   * Lists every page of tools: at most `maxListPages` pages and `maxTools` tools, and never the
   * same cursor twice, so a server that pages forever fails the listing instead of growing it.
   */
  private async fetch(): Promise<void> {
    const maxPages = bound(this.options.maxListPages, DEFAULT_MAX_LIST_PAGES);
    const maxTools = bound(this.options.maxTools, DEFAULT_MAX_TOOLS);
    const found: McpTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      // One page a request: the SDK's listTools() without a cursor would walk every page itself.
      const page = await this.client.request({
        method: 'tools/list',
        params: cursor === undefined ? {} : { cursor },
      });
      pages++;
      if (found.length + page.tools.length > maxTools)
        throw new Error(`tools/list: more than ${maxTools} tools (maxTools)`);
      for (const tool of page.tools) found.push(tool);
      cursor = page.nextCursor;
      if (cursor === undefined) break;
      if (seen.has(cursor)) throw new Error('tools/list: cursor repeats');
      if (pages >= maxPages)
        throw new Error(`tools/list: more than ${maxPages} pages (maxListPages)`);
      seen.add(cursor);
    } while (!this.closed);
    if (!this.closed) this.publish(found);
  }

  /**
   * Leaves out the tools whose names {@link remoteNameProblem} refuses, and those whose definition
   * nests too deep to walk (see {@link MAX_SCHEMA_DEPTH}), saying so once each.
   */
  private listable(found: readonly McpTool[]): McpTool[] {
    return found.filter((definition) => {
      const named = remoteNameProblem(definition.name);
      const problem =
        named === undefined
          ? // Measured once, as the listing arrived (see OrderedTransport).
            definition._meta?.[TOO_DEEP] === true
            ? `its definition is nested deeper than ${MAX_SCHEMA_DEPTH} levels`
            : (this.headersProblem(definition) ?? this.taskProblem(definition))
          : `its name ${named}`;
      if (problem === undefined) return true;
      if (!this.refused.has(definition.name)) {
        this.refused.add(definition.name);
        const name = printableName(definition.name);
        this.options.onerror?.(new Error(`mcp: tools/list: left out tool ${name}: ${problem}`));
      }
      return false;
    });
  }

  /**
   * Why a tool that runs only as a task (MCP 2025-11-25's `execution.taskSupport: "required"`)
   * cannot be offered: its server serves this client no tasks, so every call would fail.
   */
  private taskProblem(definition: McpTool): string | undefined {
    if (taskSupportOf(definition) !== 'required' || this.connection.tasks !== undefined)
      return undefined;
    return 'it runs only as a task (execution.taskSupport: "required"), and its server serves this client no tasks';
  }

  /** What breaks the tool's `x-mcp-header` declarations, where calls mirror them (see RemoteTool). */
  private headersProblem(definition: McpTool): string | undefined {
    if (!this.connection.mirrorsHeaders) return undefined;
    const declared = headerDeclarations(definition.inputSchema);
    return typeof declared === 'string' ? `its x-mcp-header: ${declared}` : undefined;
  }

  private publish(found: readonly McpTool[]): void {
    const previous = new Map<string, RemoteTool>();
    for (const tool of this.tools)
      if (tool instanceof RemoteTool) previous.set(tool.definition.name, tool);
    const next = this.listable(found).map((definition) => {
      const old = previous.get(definition.name);
      if (old !== undefined && JSON.stringify(old.definition) === JSON.stringify(definition))
        return old;
      const name = this.name(definition.name);
      return new RemoteTool(this.connection, name, definition, this.claimsFor(definition, name));
    });
    this.list.next(Object.freeze(next));
  }

  /**
   * The application's claims for a tool, named by its remote or its local name, and the ordering
   * its listing hints where the application claims none (see `orderingHints`).
   */
  private claimsFor(definition: McpTool, local: string): RemoteClaims {
    const remoteName = definition.name;
    const named = (name: string): boolean => name === local || name === remoteName;
    /** What `claims` says of this tool: under its local name first, else its remote one. */
    const claimOf = <T>(claims: Readonly<Record<string, T>> | undefined): T | undefined =>
      claims === undefined
        ? undefined
        : Object.hasOwn(claims, local)
          ? claims[local]
          : Object.hasOwn(claims, remoteName)
            ? claims[remoteName]
            : undefined;
    const resources = this.options.resources ?? {};
    const own = claimOf(resources);
    let resource: ResourceName | ResourceFunction = typeof own === 'function' ? own : '';
    for (const [key, names] of Object.entries(resources))
      if (resource === '' && Array.isArray(names) && names.some(named)) resource = key;
    const by = claimOf(this.options.confined);
    let sequential = this.sequential.has(local) || this.sequential.has(remoteName);
    if (!sequential && resource === '' && this.options.orderingHints !== false) {
      const listed = listedOrdering(definition._meta);
      for (const why of listed.ignored)
        this.options.onerror?.(
          new Error(`mcp: tools/list: tool ${printableName(remoteName)}: ignored ${why}`),
        );
      sequential = listed.sequential;
      const counted = listed.resource;
      // A counted resource keeps its capacity, under the local name (see docs/mcp.md).
      if (!sequential && counted !== undefined)
        resource =
          counted.capacity === 1
            ? this.name(counted.key)
            : { key: this.name(counted.key), capacity: counted.capacity };
    }
    const replay = claimOf(this.options.replay);
    const detach = this.detach.has(local) || this.detach.has(remoteName);
    return {
      sequential,
      resource,
      confinedBy: by,
      ...(replay === undefined ? {} : { replay }),
      ...(detach ? { detach } : {}),
    };
  }
}

/** `value` as a bound: a number of at least 1 (Infinity for none), else `fallback`. */
function bound(value: number | undefined, fallback: number): number {
  return value !== undefined && value >= 1 ? Math.floor(value) : fallback;
}

/**
 * Ends a session the server keeps (Streamable HTTP's `mcp-session-id`) before the transport closes,
 * so the server frees it now rather than when it has been idle for long enough. A transport
 * without sessions has nothing to end; a server that is already gone is not waited for.
 */
function endSession(transport: Transport): Promise<void> {
  const sessions = transport as Transport & { terminateSession?: () => Promise<void> };
  if (typeof sessions.terminateSession !== 'function' || transport.sessionId === undefined)
    return Promise.resolve();
  return sessions.terminateSession().catch(() => undefined);
}

function isTransport(value: unknown): value is Transport {
  const transport = value as Partial<Transport> | null | undefined;
  return (
    typeof transport === 'object' &&
    transport !== null &&
    typeof transport.start === 'function' &&
    typeof transport.send === 'function' &&
    typeof transport.close === 'function'
  );
}

/** What was given instead of a transport, in a few words. */
function given(value: unknown): string {
  if (value instanceof URL) return `the URL ${visible(value.href.slice(0, 200))}`;
  if (typeof value === 'string')
    return `the string ${visible(JSON.stringify(value.slice(0, 200)))}`;
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object without start, send and close';
}

/** Whether `transport` talks to a child process over stdio (the SDK's stdio transport has a pid). */
function isStdio(transport: Transport): boolean {
  return 'pid' in transport;
}

/**
 * Which MCP tasks `client`'s server serves it: the extension in MCP 2026-07-28 (`v2`), or, before
 * it, 2025-11-25's tasks of tools/call (`v1`); undefined when none.
 */
function taskGenerationOf(client: Client): TaskGeneration | undefined {
  const capabilities = client.getServerCapabilities() as
    | {
        extensions?: Record<string, unknown>;
        tasks?: { requests?: { tools?: { call?: unknown } } };
      }
    | undefined;
  if (client.getProtocolEra() === 'modern')
    return capabilities?.extensions?.[TASKS_EXTENSION] === undefined ? undefined : 'v2';
  return capabilities?.tasks?.requests?.tools?.call === undefined ? undefined : 'v1';
}

/**
 * Opens one MCP session over `transport` and lists the server's tools. Resolves with the
 * {@link McpRemote} once the first list has landed; rejects, with the transport closed, when the
 * session cannot be opened or the list cannot be read.
 *
 * Each remote tool calls the server with progress requested, so the call's timeout restarts on
 * progress; its progress notifications become progress events in the order the server sent them,
 * each before the result, one sent just before it included. Unsubscribing from a call sends MCP's
 * cancellation, as does a call that times out.
 *
 * A remote's annotations are hints: they are reported as the server stated them (with MCP's defaults
 * where they apply) and never make a tool sequential, resource-bound or confined, nor undo what
 * the application claims in `options`. The ordering hints an agenttool server lists in a tool's
 * `_meta` (`io.github.agenttool/sequential`, `io.github.agenttool/resource`) do order its calls,
 * unless the application says otherwise (see {@link McpClientOptions.orderingHints}).
 *
 * A tool whose name is empty, longer than 128 characters, or holds control or invisible characters
 * (an escape sequence, a newline, a bidi override) is left out of the list and reported once to
 * `options.onerror`: a name reaches terminals, logs and the model's function list as it is. So is
 * a tool whose definition (its schemas included) nests deeper than 512 levels of arrays and
 * objects: writing it as JSON, listing or compiling it would overflow the stack.
 *
 * Records: what the server's call recorded (an agenttool server sends it in the result's
 * `_meta["io.agenttool/records"]`) is written through the calling job's recorder before the call
 * ends, failed calls included, so a record of a side effect does not stop at the process
 * boundary; through a proxy made with `createMcpServer` it travels on, hop by hop.
 *
 * With `roots`, the client declares the roots capability and answers `roots/list`; the server's
 * log messages go to the running call or `onLog`, and its questions (`elicitation/create`) to the
 * running call's `context.elicit` (see {@link McpClientOptions.elicitor}).
 */
export async function connectMcp(
  transport: Transport,
  options: McpClientOptions = {},
): Promise<McpRemote> {
  if (!isTransport(transport))
    throw new TypeError(
      `connectMcp: expected an MCP transport (httpTransport(url), stdioTransport(...) or the SDK's), got ${given(transport)}`,
    );
  const ordered = new OrderedTransport(transport);
  const capabilities: ClientCapabilities = {
    ...(options.elicitor === false ? {} : elicitationCapability(options.urlElicitation === true)),
    // MCP 2026-07-28's tasks: a server may answer a call with a task, which the call polls.
    extensions: { [TASKS_EXTENSION]: {} },
  } as ClientCapabilities;
  const clientInfo = options.clientInfo ?? CLIENT_INFO;
  const client = new Client(clientInfo, {
    capabilities,
    versionNegotiation: options.versionNegotiation ?? {
      mode: isStdio(transport) ? 'legacy' : 'auto',
    },
  });
  if (options.onerror !== undefined) client.onerror = options.onerror;
  let roots: ReturnType<typeof offerRoots> | undefined;
  try {
    if (options.roots !== undefined) roots = offerRoots(client, options.roots);
    await client.connect(ordered);
    roots?.connected();
    // What the client declares, its roots included: a 2026-07-28 call carries it (remote-tool.ts).
    const declared =
      roots === undefined ? capabilities : { ...capabilities, roots: roots.declared };
    const remote = new McpRemote(client, ordered, options, roots, {
      capabilities: declared,
      clientInfo,
    });
    await remote.refresh();
    return remote;
  } catch (err) {
    roots?.close();
    await client.close().catch(() => undefined);
    throw new McpCallError('', `mcp: connect: ${describeCause(err)}`, err, 'connect');
  }
}
