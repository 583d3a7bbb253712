/**
 * The call a server's request to the client belongs to (a question, `roots/list`): MCP does not
 * say which, so it is read from what the request carries.
 *
 * @module
 */
import type { InFlightCall } from './remote-connection.js';

/** MCP 2025-11-25's `_meta` key naming the task a request belongs to. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** The task id a question's `_meta` names (`related-task`), if any. */
export function relatedTaskOf(meta: unknown): string | undefined {
  const related = (meta as Record<string, unknown> | undefined)?.[RELATED_TASK];
  const taskId = (related as { taskId?: unknown } | undefined)?.taskId;
  return typeof taskId === 'string' ? taskId : undefined;
}

/**
 * The call a question belongs to: the one its token names, or the one following the task it
 * names, else the only one running.
 */
export function callOf(
  inFlight: ReadonlySet<InFlightCall>,
  token: string | undefined,
  task?: string,
): InFlightCall | undefined {
  if (token !== undefined) for (const call of inFlight) if (call.token === token) return call;
  if (task !== undefined) for (const call of inFlight) if (call.taskId === task) return call;
  if (inFlight.size !== 1) return undefined;
  const [only] = inFlight;
  return only;
}
