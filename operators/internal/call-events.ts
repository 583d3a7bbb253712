/**
 * The events of a call, as the engine (engine.ts) and the solo run (solo-run.ts)
 * emit them, and the options every call's context is made with.
 *
 * @module
 */
import type { ElicitRequest, ElicitResult, ToolResult } from '../../lib/contract.js';
import type { CallContextOptions } from '../../lib/context.js';
import { DETACHED_OUTPUT } from '../detached-output.js';
import type { ExecuteOptions, ExecutionEvent } from '../job.js';
import type { CallRun } from './call-run.js';

/** The context options of a batch that gives none of them: one object for every such batch. */
const NO_CONTEXT_OPTIONS: CallContextOptions = Object.freeze({});

/** What every call's context of a batch is made with: its recorder, elicitor and caps. */
export function contextOptionsOf(options: ExecuteOptions): CallContextOptions {
  if (
    options.recorder === undefined &&
    options.elicitor === undefined &&
    options.maxRecords === undefined &&
    options.maxRecordBytes === undefined &&
    options.maxQuestions === undefined
  )
    return NO_CONTEXT_OPTIONS;
  return {
    recorder: options.recorder,
    maxRecords: options.maxRecords,
    maxRecordBytes: options.maxRecordBytes,
    elicitor: options.elicitor,
    maxQuestions: options.maxQuestions,
  };
}

/** A progress update of `run`. */
export function progressEvent(run: CallRun, result: ToolResult): ExecutionEvent {
  return { index: run.index, callId: run.job.call.id, final: false, result };
}

/** `run` is under way and detaches: the model may be answered for it now (job.ts, `detached`). */
export function detachedEvent(run: CallRun): ExecutionEvent {
  const result = { output: DETACHED_OUTPUT };
  return { index: run.index, callId: run.job.call.id, final: false, detached: true, result };
}

/** `run`'s tool asked a question (answer undefined), or it was answered. */
export function questionEvent(
  run: CallRun,
  question: ElicitRequest,
  answer: ElicitResult | undefined,
): ExecutionEvent {
  const index = run.index;
  const callId = run.job.call.id;
  return answer === undefined
    ? { index, callId, final: false, question }
    : { index, callId, final: false, question, answer };
}

/** `run`'s final event: exactly one of `result` and `error` is set. */
export function finalEvent(
  run: CallRun,
  result: ToolResult | undefined,
  error: Error | undefined,
): ExecutionEvent {
  const index = run.index;
  const callId = run.job.call.id;
  return error === undefined
    ? { index, callId, final: true, result: result as ToolResult }
    : { index, callId, final: true, error };
}
