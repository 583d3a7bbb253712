/**
 * What travels between a fleet's dispatchers and workers through Redis: a job's data (the call to
 * run), its progress, its result and its failure. Whatever can write to Redis can write any of
 * these, so each is checked on arrival: a reader here returns the typed message or throws a
 * {@link FleetMessageError} that names the job and says what was wrong, in one line.
 *
 * @module
 */
import type { ToolCall, ToolResult } from '../../lib/contract.js';

/** The call a job carries: what a signature covers (see fleet-signing.ts). */
export interface CallPayload {
  /** The tool's name. */
  readonly tool: string;
  readonly call: {
    readonly id: string;
    readonly args: string;
    readonly idempotencyKey: string;
    readonly trace?: ToolCall['trace'];
  };
  /** The batch the call belongs to (`''`: none). */
  readonly batch: string;
}

/** A job's data: the call, and its signature when the dispatcher has a secret. */
export interface CallData extends CallPayload {
  readonly sig?: string;
}

/** A call's end as the worker returns it (the job's result), signed when the worker has a secret. */
export interface Finished {
  readonly output: ToolResult['output'];
  readonly details?: unknown;
  readonly terminate?: boolean;
  readonly sig?: string;
}

/** A call's failure as the worker gives it (the job's failed reason, after {@link FAILURE}). */
export interface Failure {
  readonly message: string;
  readonly code?: string;
  readonly sig?: string;
}

/** What a job's progress carries: a record made, a question asked, or the tool's progress. */
export type Progress =
  | { readonly kind: 'record'; readonly ns: string; readonly data: string }
  | { readonly kind: 'question'; readonly key: string; readonly request: unknown }
  | { readonly kind: 'progress'; readonly output: unknown; readonly details?: unknown };

/** A message from Redis that is not what the fleet writes, or not signed (code `fleet_message`). */
export class FleetMessageError extends Error {
  readonly code = 'fleet_message';
  constructor(jobId: string, what: string) {
    super(`fleet: job ${jobId}: ${what}`);
    this.name = 'FleetMessageError';
  }
}

/** The prefix of a failed reason the fleet wrote (BullMQ keeps a reason as text). */
export const FAILURE = 'agenttool-failure:';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` shown in a message: its JSON, cut at 80 characters. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Parses `value` when it is JSON text (BullMQ hands some values over unparsed). */
function parsed(value: unknown, jobId: string, what: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new FleetMessageError(jobId, `${what} is not JSON: ${shown(value)}`);
  }
}

/** The job data `value`, checked; throws a {@link FleetMessageError} when it is not a call. */
export function readCallData(value: unknown, jobId: string): CallData {
  const data = parsed(value, jobId, 'its data');
  const call = isRecord(data) ? data.call : undefined;
  if (
    !isRecord(data) ||
    typeof data.tool !== 'string' ||
    !isRecord(call) ||
    typeof call.id !== 'string' ||
    typeof call.args !== 'string' ||
    typeof call.idempotencyKey !== 'string' ||
    (data.batch !== undefined && typeof data.batch !== 'string') ||
    (data.sig !== undefined && typeof data.sig !== 'string') ||
    (call.trace !== undefined &&
      !(isRecord(call.trace) && typeof call.trace.traceparent === 'string'))
  )
    throw new FleetMessageError(jobId, `its data is not a call: ${shown(data)}`);
  return {
    tool: data.tool,
    call: {
      id: call.id,
      args: call.args,
      idempotencyKey: call.idempotencyKey,
      ...(call.trace === undefined ? {} : { trace: call.trace as unknown as ToolCall['trace'] }),
    },
    batch: (data.batch as string | undefined) ?? '',
    ...(data.sig === undefined ? {} : { sig: data.sig as string }),
  };
}

/** A job's result `value`, checked; throws a {@link FleetMessageError} when it is not one. */
export function readFinished(value: unknown, jobId: string): Finished {
  const finished = parsed(value, jobId, 'its result');
  if (
    !isRecord(finished) ||
    !(typeof finished.output === 'string' || Array.isArray(finished.output)) ||
    (finished.terminate !== undefined && typeof finished.terminate !== 'boolean') ||
    (finished.sig !== undefined && typeof finished.sig !== 'string')
  )
    throw new FleetMessageError(jobId, `its result is not a call's end: ${shown(finished)}`);
  return {
    output: finished.output as ToolResult['output'],
    ...(finished.details === undefined ? {} : { details: finished.details }),
    ...(finished.terminate === true ? { terminate: true } : {}),
    ...(finished.sig === undefined ? {} : { sig: finished.sig as string }),
  };
}

/** The failed reason of a job as a worker writes it. */
export function failureText(failure: Failure): string {
  return `${FAILURE}${JSON.stringify(failure)}`;
}

/**
 * A job's failed reason, checked. A reason the fleet did not write (BullMQ's own, a stalled job)
 * is read as a plain message, without a signature; anything but text is a
 * {@link FleetMessageError}.
 */
export function readFailure(reason: unknown, jobId: string): Failure {
  if (typeof reason !== 'string' || reason === '')
    throw new FleetMessageError(jobId, `its failure gives no reason: ${shown(reason)}`);
  if (!reason.startsWith(FAILURE)) return { message: reason };
  const failure = parsed(reason.slice(FAILURE.length), jobId, 'its failure');
  if (
    !isRecord(failure) ||
    typeof failure.message !== 'string' ||
    (failure.code !== undefined && typeof failure.code !== 'string') ||
    (failure.sig !== undefined && typeof failure.sig !== 'string')
  )
    throw new FleetMessageError(jobId, `its failure is not an error: ${shown(failure)}`);
  return {
    message: failure.message,
    ...(failure.code === undefined ? {} : { code: failure.code as string }),
    ...(failure.sig === undefined ? {} : { sig: failure.sig as string }),
  };
}

/** The error a failure stands for, its code kept. */
export function errorOf(failure: Failure): Error {
  const error = new Error(failure.message);
  return failure.code === undefined ? error : Object.assign(error, { code: failure.code });
}

/** A job's progress `data`, checked; `undefined` when it is none of the fleet's. */
export function readProgress(data: unknown): Progress | undefined {
  if (!isRecord(data)) return undefined;
  const { record, question } = data;
  if (record !== undefined)
    return isRecord(record) && typeof record.ns === 'string' && typeof record.data === 'string'
      ? { kind: 'record', ns: record.ns, data: record.data }
      : undefined;
  if (question !== undefined)
    return isRecord(question) && typeof question.key === 'string'
      ? { kind: 'question', key: question.key, request: question.request }
      : undefined;
  const output = data.output ?? '';
  if (typeof output !== 'string' && !Array.isArray(output)) return undefined;
  return {
    kind: 'progress',
    output,
    ...(data.details === undefined ? {} : { details: data.details }),
  };
}

/**
 * `value` as JSON text with every object's keys in order, so that a signature made on one side is
 * checked on the same text on the other, whatever order JSON parsing gave the keys.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
