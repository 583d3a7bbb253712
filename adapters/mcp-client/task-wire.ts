/**
 * What a server sends of MCP tasks, read: a task (`readTask`), in either generation, checked field
 * by field against the official wire types (`@modelcontextprotocol/ext-tasks`, types only), and a
 * task's question (`questionOf`). The wire types' zod schemas would bring zod's whole namespace,
 * some 80 KB min+gzip, into every page that uses `connectMcp` (see the bundle-size bench).
 *
 * @module
 */
import type { CreateTaskResultV1, GetTaskResultV1 } from '@modelcontextprotocol/ext-tasks/core/v1';
import type { CreateTaskResultV2, GetTaskResultV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { ElicitRequest, ElicitSchema } from '../../lib/contract.js';
import { elicitUrlProblem } from '../../lib/elicit-url.js';
import type { TaskGeneration } from './remote-task.js';

/** A task as polled, in either generation. */
export interface Snapshot {
  readonly taskId: string;
  readonly status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  readonly statusMessage?: string | undefined;
  readonly pollIntervalMs?: number | undefined;
  readonly inputRequests?: Readonly<Record<string, unknown>> | undefined;
  readonly result?: Readonly<Record<string, unknown>> | undefined;
  readonly error?:
    { readonly code: number; readonly message: string; readonly data?: unknown } | undefined;
}

/** Every key of every member of `T` (a union). */
type KeysOf<T> = T extends unknown ? keyof T : never;

/**
 * The fields of a task on the wire, in either generation, by the official types' names (a name
 * they do not have does not compile), each yet to be checked.
 */
type WireFields = Partial<
  Record<
    KeysOf<CreateTaskResultV2 | GetTaskResultV2 | CreateTaskResultV1['task'] | GetTaskResultV1>,
    unknown
  >
>;

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isWhole = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value);

/**
 * `raw` read as a task of `generation` (a CreateTaskResult's task, or a tasks/get result), the
 * fields the wire types say it has checked (`CreateTaskResultV2`, `GetTaskResultV2`,
 * `CreateTaskResultV1`, `GetTaskResultV1`), with what tasks/get inlines for its status; a string
 * saying what is wrong otherwise.
 */
export function readTask(raw: unknown, generation: TaskGeneration): Snapshot | string {
  if (!isObject(raw)) return 'not an object';
  const fields = raw as WireFields;
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = fields;
  if (typeof taskId !== 'string' || taskId === '') return 'taskId is not a string';
  if (typeof status !== 'string' || !STATUSES.has(status))
    return `status ${JSON.stringify(status)} is not a task status`;
  if (statusMessage !== undefined && typeof statusMessage !== 'string')
    return 'statusMessage is not a string';
  if (typeof createdAt !== 'string' || typeof lastUpdatedAt !== 'string')
    return 'createdAt or lastUpdatedAt is not a string';
  const ttl = generation === 'v2' ? fields.ttlMs : fields.ttl;
  if (ttl !== null && !isWhole(ttl))
    return `${generation === 'v2' ? 'ttlMs' : 'ttl'} is not whole ms or null`;
  const poll = generation === 'v2' ? fields.pollIntervalMs : fields.pollInterval;
  if (poll !== undefined && !isWhole(poll)) return 'the poll interval is not whole ms';
  const snapshot: {
    -readonly [K in keyof Snapshot]: Snapshot[K];
  } = { taskId, status: status as Snapshot['status'], statusMessage, pollIntervalMs: poll };
  if (generation === 'v1') return snapshot;
  if (status === 'input_required') {
    if (!isObject(fields.inputRequests)) return 'an input_required task has no inputRequests';
    snapshot.inputRequests = fields.inputRequests;
  }
  if (status === 'completed' && fields.resultType !== 'task') {
    const result = fields.result;
    if (!isObject(result) || !Array.isArray(result.content))
      return 'a completed task has no result with content';
    snapshot.result = result;
  }
  if (status === 'failed' && fields.resultType !== 'task') {
    const error = fields.error as Record<string, unknown> | undefined;
    if (!isObject(error) || !isWhole(error.code) || typeof error.message !== 'string')
      return 'a failed task has no error with a code and a message';
    snapshot.error =
      error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
  }
  return snapshot;
}

/** `params` of an `elicitation/create` as a question, or why it is not one agenttool asks. */
export function questionOf(
  params: unknown,
): { question: ElicitRequest; schema?: unknown } | { problem: string } {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.message !== 'string') return { problem: 'a question without a message' };
  if (p.mode === 'url') {
    const problem = elicitUrlProblem(p.url);
    if (problem !== undefined) return { problem: `a URL question was declined unseen: ${problem}` };
    return { question: { mode: 'url', message: p.message, url: p.url as string } };
  }
  return {
    question: { message: p.message, schema: p.requestedSchema as ElicitSchema },
    schema: p.requestedSchema,
  };
}
