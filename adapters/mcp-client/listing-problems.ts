/**
 * Why a tool a server lists cannot be offered: what `McpRemote` leaves out of its list.
 *
 * @module
 */
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { MAX_SCHEMA_DEPTH } from '../../lib/validation/json.js';
import { headerDeclarations } from '../mcp-shared/mcp-param-headers.js';
import { TOO_DEEP } from './ordered-transport.js';
import { taskSupportOf, type RemoteConnection } from './remote-tool.js';
import { remoteNameProblem } from './tool-name.js';

/**
 * Why `definition` cannot be offered on `connection`, or undefined when it can: its name (see
 * {@link remoteNameProblem}), a definition nested too deep to walk (see {@link MAX_SCHEMA_DEPTH}),
 * its `x-mcp-header` declarations where calls mirror them (see RemoteTool), or a tool that runs
 * only as a task (MCP 2025-11-25's `execution.taskSupport: "required"`) where its server serves
 * this client no tasks, so that every call would fail.
 */
export function listingProblem(
  definition: McpTool,
  connection: Pick<RemoteConnection, 'mirrorsHeaders' | 'tasks'>,
): string | undefined {
  const named = remoteNameProblem(definition.name);
  if (named !== undefined) return `its name ${named}`;
  // Measured once, as the listing arrived (see OrderedTransport).
  if (definition._meta?.[TOO_DEEP] === true)
    return `its definition is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
  if (connection.mirrorsHeaders) {
    const declared = headerDeclarations(definition.inputSchema);
    if (typeof declared === 'string') return `its x-mcp-header: ${declared}`;
  }
  if (taskSupportOf(definition) === 'required' && connection.tasks === undefined)
    return 'it runs only as a task (execution.taskSupport: "required"), and its server serves this client no tasks';
  return undefined;
}
