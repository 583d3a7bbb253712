/**
 * McpRemote: a connected MCP server. Longer than most files here because the list's refresh
 * bookkeeping (coalescing, `await()`, the notification grace) and the connection's end are one
 * state machine, and splitting it would put half of each rule somewhere else.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import type {
  Client,
  ClientCapabilities,
  Implementation,
  LoggingMessageNotification,
  Tool as McpTool,
} from '@modelcontextprotocol/client';
import type { Observable } from 'rxjs';
import type { ResourceFunction, ResourceName, Tool } from '../../lib/contract.js';
import { describeThrown, oneLine } from '../../lib/errors.js';
import { visible } from '../../lib/visible.js';
import { CALL_TOKEN } from '../mcp-shared/call-token.js';
import { closedError, McpCallError } from '../mcp-shared/mcp-errors.js';
import { answerQuestions } from './client-elicitation.js';
import { CallDeadlines } from './call-deadlines.js';
import type { OrderedTransport } from './ordered-transport.js';
import { LatestValue } from './latest-value.js';
import { RefreshTracker } from './refresh-tracker.js';
import { printableName } from './tool-name.js';
import { listingProblem } from './listing-problems.js';
import { listedOrdering } from './listed-ordering.js';
import {
  RemoteTool,
  type InFlightCall,
  type RemoteClaims,
  type RemoteConnection,
} from './remote-tool.js';
import { logMessage } from './server-log.js';
import { transportPeers } from '../mcp-shared/mcp-peer.js';
import {
  bound,
  CLIENT_INFO,
  DEFAULT_GRACE,
  DEFAULT_MAX_LIST_PAGES,
  DEFAULT_MAX_TOOLS,
  DEFAULT_TIMEOUT,
  NO_TIMEOUT,
  type McpClientOptions,
} from './mcp-client-options.js';
import { endSession, taskGenerationOf } from './mcp-session.js';
import type { OfferedRoots } from './client-roots.js';

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
  /** Remote names left out of the list (see {@link listingProblem}), each reported once. */
  private readonly refused = new Set<string>();

  /** @internal Use {@link connectMcp}: the client must be connected. */
  constructor(
    client: Client,
    private readonly transport: OrderedTransport,
    private readonly options: McpClientOptions,
    private readonly roots?: Pick<OfferedRoots, 'close' | 'answerCalls'>,
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
    const modern = client.getProtocolEra() === 'modern';
    // MCP 2026-07-28 over a transport with a stream per request (Streamable HTTP): a call ends by
    // its stream and mirrors its header arguments.
    const perRequestStream = modern && transport.hasPerRequestStream;
    // A cancellation of MCP 2026-07-28 carries the client's envelope, as the SDK's own does.
    if (modern) transport.notify = (notice) => client.notification(notice);
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
      modern,
      endsByStream: perRequestStream,
      tasks: taskGenerationOf(client),
      taskRequest: (method, params) =>
        transport.request(
          method,
          modern
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
      mirrorsHeaders: perRequestStream,
      urlQuestions: options.urlElicitation === true && options.elicitor !== false,
    };
    // A notification that came before this point is reflected by the first list, fetched after.
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (!this.closed) this.refreshes.notified();
    });
    client.setNotificationHandler('notifications/message', (notification) =>
      this.log(notification.params),
    );
    roots?.answerCalls(this.inFlight);
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

  /** Leaves out the tools {@link listingProblem} refuses, saying so once each. */
  private listable(found: readonly McpTool[]): McpTool[] {
    return found.filter((definition) => {
      const problem = listingProblem(definition, this.connection);
      if (problem === undefined) return true;
      if (!this.refused.has(definition.name)) {
        this.refused.add(definition.name);
        const name = printableName(definition.name);
        this.options.onerror?.(new Error(`mcp: tools/list: left out tool ${name}: ${problem}`));
      }
      return false;
    });
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
