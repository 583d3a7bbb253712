/**
 * What a server made by `createMcpServer` serves: each tool made ready once (its listing, the
 * validator the server runs), a live list followed once per source, and {@link ServedList}, the
 * list a server serves now.
 *
 * @module
 */
import { isObservable, type Observable } from 'rxjs';
import type { Server, Tool as McpTool } from '@modelcontextprotocol/server';
import type { Tool } from '../../lib/contract.js';
import { SchemaError } from '../../lib/errors.js';
import { definition } from '../../lib/tool-set.js';
import { checksOwnArguments } from '../../lib/tool.js';
import {
  compileValidator,
  type ArgumentLimits,
  type ArgumentValidator,
} from '../../lib/validation/validation.js';
import { MAX_SCHEMA_DEPTH, valueDeeperThan } from '../../lib/validation/json.js';
import { annotationsToMcp } from '../mcp-shared/mcp-annotations.js';
import {
  orderingMeta,
  RESOURCE_META_KEY,
  SEQUENTIAL_META_KEY,
} from '../mcp-shared/ordering-hints.js';
import { headerDeclarations, type HeaderDeclaration } from '../mcp-shared/mcp-param-headers.js';
import { DETACH_META_KEY } from '../mcp-shared/mcp-detach.js';
import type { McpServerOptions } from './server-options.js';

export interface Entry {
  readonly tool: Tool;
  readonly validator: ArgumentValidator | undefined;
  /**
   * A task tool's check of its arguments before its task is made (a call it would refuse is
   * answered at once), even for a tool that checks its own; undefined for other tools.
   */
  readonly precheck?: ArgumentValidator | undefined;
}

/** The declarations of a listing's input schema, once per tool value; a SchemaError when broken. */
const declared = new WeakMap<Tool, readonly HeaderDeclaration[]>();

function declarationsOf(tool: Tool, listing: McpTool): readonly HeaderDeclaration[] {
  const hit = declared.get(tool);
  if (hit !== undefined) return hit;
  const found = headerDeclarations(listing.inputSchema);
  if (typeof found === 'string') throw new SchemaError(tool.name, found);
  declared.set(tool, found);
  return found;
}

/** A tool ready to serve (its listing and the validator the server runs), or why it is not. */
type Prepared =
  { readonly listing: McpTool; readonly entry: Entry } | { readonly problem: SchemaError };

/**
 * Every tool prepared once per tool value and limits, whatever number of servers (one per HTTP
 * session) serve it: compiling thousands of schemas again for each new session would cost seconds.
 */
const preparedTools = new WeakMap<Tool, Map<string, Prepared>>();

function prepare(tool: Tool, limits: ArgumentLimits | undefined, report: (e: Error) => void) {
  const key = limits === undefined ? '' : `${limits.maxLength}/${limits.maxDepth}`;
  let byLimits = preparedTools.get(tool);
  if (byLimits === undefined) preparedTools.set(tool, (byLimits = new Map()));
  const hit = byLimits.get(key);
  if (hit !== undefined) return hit;
  let prepared: Prepared;
  try {
    // A tool() checks the same text against the same schema, with the same messages, before it
    // runs: checking twice would only cost. Limits set for this server still need the server's
    // check.
    const own = limits === undefined && checksOwnArguments(tool);
    const validator = own
      ? undefined
      : compileValidator(tool.parameters, { tool: tool.name, limits });
    const task = taskOf(tool);
    const precheck =
      task === true || task === 'required'
        ? (validator ?? compileValidator(tool.parameters, { tool: tool.name }))
        : undefined;
    const listing = listingOf(tool);
    declarationsOf(tool, listing);
    prepared = { listing, entry: { tool, validator, precheck } };
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    prepared = { problem: err };
    report(err);
  }
  byLimits.set(key, prepared);
  return prepared;
}

/**
 * How a call of `tool` is served as a task (see `Tool.task`): as its `task` says, and a tool whose
 * calls detach (`Tool.detach`) and says nothing of tasks as `task: true`, so that a client that
 * takes tasks gets one it can poll while the model goes on.
 */
export function taskOf(tool: Tool): boolean | 'required' | undefined {
  const task = tool.task;
  return task === undefined && tool.detach === true ? true : task;
}

/**
 * The tools/list entry of `tool`: its schema, exactly the annotation hints it states, and its
 * ordering hints in `_meta` (see {@link orderingMeta}). A remote tool (from `connectMcp`) is
 * listed as its server listed it (title, annotations, outputSchema, `_meta`, ...), under its local
 * name, so a proxy hop changes nothing a client sees; only an `execution` that offers tasks is
 * left out, since this server runs none, and its ordering hints are the ones it runs under here
 * (the upstream's as `connectMcp` took them, under its prefix, or the application's word).
 */
function listingOf(tool: Tool): McpTool {
  const parameters = definition(tool).parameters;
  if (parameters.type !== 'object')
    throw new SchemaError(
      tool.name,
      'MCP serves object schemas only ("type": "object" at the root)',
    );
  if (tool.remote !== undefined) {
    // Sending it writes it as JSON, which recurses once per level (see MAX_SCHEMA_DEPTH).
    if (valueDeeperThan(tool.remote, MAX_SCHEMA_DEPTH))
      throw new SchemaError(
        tool.name,
        `its definition is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
      );
    const listing = { ...tool.remote, name: tool.name } as McpTool;
    const meta = withOrdering(listing._meta, tool);
    if (meta !== listing._meta) listing._meta = meta;
    if (
      listing.execution?.taskSupport !== undefined &&
      listing.execution.taskSupport !== 'forbidden'
    )
      delete listing.execution;
    return listing;
  }
  const listing: McpTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: parameters as McpTool['inputSchema'],
  };
  if (tool.outputSchema !== undefined)
    listing.outputSchema = tool.outputSchema as McpTool['outputSchema'];
  const annotations = annotationsToMcp(tool.annotations);
  if (annotations !== undefined) listing.annotations = annotations;
  const meta = orderingMeta(tool);
  if (meta !== undefined || tool.detach === true)
    listing._meta = { ...meta, ...(tool.detach === true && { [DETACH_META_KEY]: true }) };
  return listing;
}

/**
 * A remote listing's `_meta` with its ordering hints replaced by those `tool` runs under; `meta`
 * itself when it is no object and there are none.
 */
function withOrdering(meta: McpTool['_meta'], tool: Tool): McpTool['_meta'] {
  const hints = orderingMeta(tool);
  if (typeof meta !== 'object' || meta === null) return hints ?? meta;
  const {
    [SEQUENTIAL_META_KEY]: _sequential,
    [RESOURCE_META_KEY]: _resource,
    ...rest
  } = meta as Record<string, unknown>;
  return { ...rest, ...hints };
}

/** A live tool source's latest list, and the servers that serve it (to tell of a change). */
interface Source {
  latest: readonly Tool[];
  readonly servers: Set<WeakRef<Server>>;
  /** Told of each change too: an HTTP handler's `subscriptions/listen` streams (2026-07-28). */
  readonly listeners: Set<() => void>;
}

/** The live source each server serves, for {@link onToolListChange}. */
const sourceOfServer = new WeakMap<Server, Source>();

/**
 * Calls `listener` whenever the live tool list `server` serves changes (see `createMcpServer`
 * with an Observable): what a handler of MCP 2026-07-28 tells its `subscriptions/listen` streams,
 * since its servers live one request each. Returns what stops it, and the same function for every
 * server of one source, so a caller follows a source once; undefined for a server of a fixed list.
 */
export function onToolListChange(
  server: Server,
  listener: () => void,
): { source: object; stop: () => void } | undefined {
  const source = sourceOfServer.get(server);
  if (source === undefined) return undefined;
  source.listeners.add(listener);
  return { source, stop: () => source.listeners.delete(listener) };
}

/**
 * Live sources, each followed once however many servers (one per session or request) serve it:
 * a subscription per server would outlive the servers nobody closes.
 */
const sources = new WeakMap<object, Source>();

function sourceOf(tools$: Observable<Iterable<Tool>>): Source {
  const known = sources.get(tools$);
  if (known !== undefined) return known;
  const source: Source = { latest: [], servers: new Set(), listeners: new Set() };
  sources.set(tools$, source);
  tools$.subscribe({
    next: (next) => {
      const list = [...next];
      const same =
        list.length === source.latest.length && list.every((tool, i) => tool === source.latest[i]);
      source.latest = list;
      if (same) return;
      for (const ref of source.servers) {
        const server = ref.deref();
        if (server === undefined) source.servers.delete(ref);
        // Told to a connected client only; a server not (or no longer) connected refuses.
        else server.sendToolListChanged().catch(() => undefined);
      }
      for (const listener of source.listeners) listener();
    },
    error: () => undefined,
  });
  return source;
}

/** What a server serves: the entries by name, the listing, the header rules. */
export interface Served {
  readonly entries: ReadonlyMap<string, Entry>;
  readonly list: { tools: McpTool[] };
  readonly rules: ReadonlyMap<string, readonly HeaderDeclaration[]>;
}

const EMPTY: Served = { entries: new Map(), list: { tools: [] }, rules: new Map() };

/**
 * `tools` made ready to serve (see `prepare`); a tool that cannot be is left out and reported.
 * @throws Error for an empty or duplicate tool name.
 */
function readyToServe(
  tools: Iterable<Tool>,
  options: McpServerOptions,
  report: (error: Error) => void,
): Served {
  const entries = new Map<string, Entry>();
  const listings: McpTool[] = [];
  const names = new Set<string>();
  for (const tool of tools) {
    if (typeof tool.name !== 'string' || tool.name === '')
      throw new Error('mcp server: a tool has an empty name');
    if (names.has(tool.name)) throw new Error(`mcp server: duplicate tool name "${tool.name}"`);
    names.add(tool.name);
    // A remote tool's server checks its own arguments and answers in its own words; a proxy that
    // answered for it would change what the client sees.
    if (tool.remote !== undefined) {
      let listing: McpTool;
      try {
        listing = listingOf(tool);
        declarationsOf(tool, listing);
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
        report(err);
        continue;
      }
      listings.push(listing);
      entries.set(tool.name, { tool, validator: undefined });
      continue;
    }
    const prepared = prepare(tool, options.limits, report);
    if ('problem' in prepared) continue;
    listings.push(prepared.listing);
    entries.set(tool.name, prepared.entry);
  }
  const rules = new Map<string, readonly HeaderDeclaration[]>();
  for (const [name, entry] of entries) {
    const found = declared.get(entry.tool);
    if (found !== undefined && found.length > 0) rules.set(name, found);
  }
  return { entries, list: { tools: listings }, rules };
}

/**
 * The list a server serves now: a fixed list made ready once, or a live source's latest list made
 * ready once per list (a list it cannot serve, with a duplicate name, is reported and the last
 * good one stays).
 */
export class ServedList {
  readonly live: boolean;
  private readonly source: Source | undefined;
  private readonly fixed: Served | undefined;
  private made: { from: readonly Tool[]; served: Served } | undefined;

  constructor(
    tools: Iterable<Tool> | Observable<Iterable<Tool>>,
    private readonly options: McpServerOptions,
    private readonly report: (error: Error) => void,
  ) {
    this.live = isObservable(tools);
    this.source = this.live ? sourceOf(tools as Observable<Iterable<Tool>>) : undefined;
    this.fixed = this.live ? undefined : readyToServe(tools as Iterable<Tool>, options, report);
  }

  /** What is served now. */
  current(): Served {
    if (this.fixed !== undefined) return this.fixed;
    const latest = this.source!.latest;
    if (this.made?.from !== latest) {
      try {
        this.made = { from: latest, served: readyToServe(latest, this.options, this.report) };
      } catch (err) {
        this.report(err instanceof Error ? err : new Error(String(err)));
        this.made = { from: latest, served: this.made?.served ?? EMPTY };
      }
    }
    return this.made.served;
  }

  /** Whether it serves remote tools (or may: a live list), whose servers' log messages go on. */
  proxies(): boolean {
    return (
      this.live || [...this.current().entries.values()].some((e) => e.tool.remote !== undefined)
    );
  }

  /** Tells `server` of each change of a live list (and `onToolListChange` of it). */
  follow(server: Server): void {
    if (this.source === undefined) return;
    this.source.servers.add(new WeakRef(server));
    sourceOfServer.set(server, this.source);
  }
}
