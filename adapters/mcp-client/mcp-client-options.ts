/**
 * The options of {@link connectMcp} (McpClientOptions), and the defaults McpRemote takes for
 * those left out.
 *
 * @module
 */
import type { Implementation, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { Elicitor, Replay, ResourceFunction } from '../../lib/contract.js';
import type { McpRoots } from './client-roots.js';
import type { McpLogMessage } from './server-log.js';

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
   * `Tool.resource`). A tool named by a function takes it over any list that names it. A
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
   * What running a call again does, by tool (remote or local name); see `Tool.replay`. A
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

export const DEFAULT_GRACE = 50;
export const DEFAULT_MAX_LIST_PAGES = 100;
export const DEFAULT_MAX_TOOLS = 10_000;
export const DEFAULT_TIMEOUT = 60_000;
export const NO_TIMEOUT = 2_147_483_647;
export const CLIENT_INFO: Implementation = { name: 'agenttool', version: '0.1.0' };

/** `value` as a bound: a number of at least 1 (Infinity for none), else `fallback`. */
export function bound(value: number | undefined, fallback: number): number {
  return value !== undefined && value >= 1 ? Math.floor(value) : fallback;
}
