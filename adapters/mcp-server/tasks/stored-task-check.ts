/**
 * A stored task checked as it is read: a task record crosses a process boundary (another instance,
 * or anything else that writes to the same Redis, wrote it), so each field is checked on arrival.
 * A record that is not one a task store writes reads as a `failed` task whose message names the
 * bad field, never as an error out of `tasks/get` (`new Date(junk).toISOString()` throws
 * `Invalid time value`).
 *
 * @module
 */
import { describeThrown } from '../../../lib/errors.js';
import type { StoredTask, TaskStatus } from './task-store.js';

const STATUSES: readonly TaskStatus[] = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
];

/** The largest time a Date holds, in ms either side of the epoch. */
const MAX_TIME = 8.64e15;

/** A stored value, shown in a message: its JSON, cut short. */
function shown(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    text = `(${describeThrown(err)})`;
  }
  text ??= String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): boolean =>
  typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_TIME;
const isPositive = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v > 0;
const optional =
  (check: (v: unknown) => boolean) =>
  (v: unknown): boolean =>
    v === undefined || check(v);

/** Each field a stored task has, what it must be, and the check. */
const FIELDS: readonly (readonly [keyof StoredTask, string, (v: unknown) => boolean])[] = [
  ['tool', 'a string', (v) => typeof v === 'string'],
  ['status', `one of ${STATUSES.join(', ')}`, (v) => STATUSES.includes(v as TaskStatus)],
  ['statusMessage', 'a string', optional((v) => typeof v === 'string')],
  ['createdAt', 'a time in ms since the epoch', isTime],
  ['lastUpdatedAt', 'a time in ms since the epoch', isTime],
  ['ttlMs', 'null or a positive number of ms', (v) => v === null || isPositive(v)],
  ['pollIntervalMs', 'a positive number of ms', optional(isPositive)],
  ['inputRequests', 'an object', optional(isObject)],
  ['result', 'an object', optional(isObject)],
  [
    'error',
    'an object with a whole number code and a string message',
    optional((v) => isObject(v) && Number.isInteger(v.code) && typeof v.message === 'string'),
  ],
  ['owner', 'a string', (v) => typeof v === 'string'],
];

/** What is wrong with `record` as the task `taskId`, or undefined when it is sound. */
export function storedTaskProblem(taskId: string, record: unknown): string | undefined {
  if (!isObject(record)) return `it is ${shown(record)}, not a task object`;
  if (record.taskId !== taskId) return `its taskId is ${shown(record.taskId)}`;
  for (const [field, expected, check] of FIELDS)
    if (!check(record[field])) return `its ${field} is ${shown(record[field])}, not ${expected}`;
  return undefined;
}

/**
 * The task `taskId` as a `failed` task (-32603) saying that its stored record is damaged and why;
 * its tool kept when the record names one. Dated now: its own times may be what is damaged.
 */
export function damagedTask(taskId: string, problem: string, record?: unknown): StoredTask {
  const tool = isObject(record) && typeof record.tool === 'string' ? record.tool : '';
  const message = `the stored task is damaged (${problem}): call the tool again`;
  const now = Date.now();
  return {
    taskId,
    tool,
    status: 'failed',
    statusMessage: message,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: null,
    owner: '',
    error: { code: -32603, message },
  };
}

/** `record` as the stored task `taskId`: itself when sound, else the {@link damagedTask}. */
export function readStoredTask(taskId: string, record: unknown): StoredTask {
  const problem = storedTaskProblem(taskId, record);
  return problem === undefined ? (record as StoredTask) : damagedTask(taskId, problem, record);
}
