/**
 * The rewrites `OrderedTransport` makes of a response before the SDK reads it: a 2026-07-28 result
 * without its `resultType` marked `complete`, a task result carried as a CallToolResult, and a
 * tools/list result's tools nested too deep replaced by stand-ins.
 *
 * @module
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { MAX_SCHEMA_DEPTH, valueDeeperThan } from '../../lib/validation/json.js';
import { isTaskResult, TASK_RESULT } from './remote-task.js';

/**
 * A result of MCP 2026-07-28 without its `resultType`, marked `complete`: the revision says a client
 * takes an absent one so, where the SDK's check would refuse the result.
 */
export function completeByDefault(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null || 'resultType' in result) return message;
  return { ...message, result: { ...result, resultType: 'complete' } } as JSONRPCMessage;
}

/**
 * A response whose result is a task (MCP 2026-07-28's `resultType: "task"`, or 2025-11-25's
 * CreateTaskResult) as a CallToolResult carrying the task under `_meta[TASK_RESULT]`: the SDK's
 * client refuses a task for tools/call, and the call reads it there (see remote-task.ts).
 */
export function asTaskResult(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: unknown }).result;
  if (!isTaskResult(result)) return message;
  return {
    ...message,
    result: { content: [], resultType: 'complete', _meta: { [TASK_RESULT]: result } },
  } as JSONRPCMessage;
}

/** The `_meta` key of a listed tool that stands in for one nested too deep to read. */
export const TOO_DEEP = 'io.agenttool/too-deep';

/**
 * A tools/list result whose tools nest deeper than {@link MAX_SCHEMA_DEPTH} levels, with each such
 * tool replaced by a shallow stand-in that keeps its name and says why (`_meta[TOO_DEEP]`): the
 * SDK checks a result against MCP's schema by recursion, which a definition thousands of levels
 * deep overflows, failing the whole listing. The stand-in is left out of the list, and reported
 * (see `McpRemote`).
 */
export function shallowTools(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null) return message;
  const tools = (result as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return message;
  // One walk a tool: the copy is made only once a deep one is met.
  let shallow: unknown[] | undefined;
  for (let i = 0; i < tools.length; i++) {
    const tool: unknown = tools[i];
    if (!valueDeeperThan(tool, MAX_SCHEMA_DEPTH)) continue;
    shallow ??= tools.slice();
    const name = (tool as { name?: unknown } | null)?.name;
    shallow[i] = {
      name: typeof name === 'string' ? name : '',
      inputSchema: { type: 'object' },
      _meta: { [TOO_DEEP]: true },
    };
  }
  return shallow === undefined
    ? message
    : ({ ...message, result: { ...result, tools: shallow } } as JSONRPCMessage);
}
