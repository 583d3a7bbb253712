/**
 * `connectMcp()`: one MCP session whose tools are Tool values.
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { describeCause, McpCallError } from '../mcp-shared/mcp-errors.js';
import { elicitationCapability } from './client-elicitation.js';
import { offerRoots } from './client-roots.js';
import { OrderedTransport } from './ordered-transport.js';
import { TASKS_EXTENSION } from './remote-task.js';
import { CLIENT_INFO, type McpClientOptions } from './mcp-client-options.js';
import { McpRemote } from './mcp-remote.js';
import { given, isStdio, isTransport } from './mcp-session.js';

export type { McpClientOptions } from './mcp-client-options.js';
export { McpRemote } from './mcp-remote.js';

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
