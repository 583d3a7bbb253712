/**
 * Raw requests of MCP's tasks extension over Streamable HTTP (MCP 2026-07-28): a client that
 * declares the extension, the calls it makes, and polling a task until it reaches a status.
 */
import { ENVELOPE, postModern } from './modern.js';
import { scaled } from './time.js';

export const TASKS = 'io.modelcontextprotocol/tasks';

/** The per-request `_meta` of a client that declares the tasks extension and answers forms. */
export const TASKING = {
  ...ENVELOPE,
  'io.modelcontextprotocol/clientCapabilities': {
    extensions: { [TASKS]: {} },
    elicitation: { form: {} },
  },
};

/** One request of a tasking client (or of `meta`'s); its `result`, or throws its error's JSON. */
export async function request(
  url: string | URL,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = TASKING,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> =
    typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
  const { body } = await postModern(url, method, params, headers, meta);
  if (body.error !== undefined) throw Object.assign(new Error(JSON.stringify(body.error)), body);
  return body.result as Record<string, unknown>;
}

/** The JSON-RPC error a request ends with (fails the test when it succeeds). */
export async function refusal(
  url: string | URL,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = TASKING,
): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await request(url, method, params, meta);
  } catch (err) {
    return (err as { error: { code: number; message: string; data?: unknown } }).error;
  }
  throw new Error(`${method} succeeded`);
}

/**
 * Polls `tasks/get` every 20 ms until `done` holds for the task (within `within` ms, scaled for
 * this machine: test/support/time.ts; a task that gets there returns at once). Fails saying what
 * the task was at the ceiling.
 */
export async function pollUntil(
  url: string | URL,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
  within = 25_000,
): Promise<Record<string, unknown>> {
  const ceiling = scaled(within);
  const deadline = Date.now() + ceiling;
  for (;;) {
    const task = await request(url, 'tasks/get', { taskId });
    if (done(task)) return task;
    if (Date.now() > deadline)
      throw new Error(`task ${taskId} did not get there in ${ceiling} ms: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a task's status is final. */
export const ended = (task: Record<string, unknown>): boolean =>
  task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
