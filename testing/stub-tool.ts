/**
 * Stub tools and event builders for marble tests of pipelines that run tools.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  Tool,
  ToolCall,
  ToolContext,
  ToolEvent,
  ToolResult,
} from '../lib/contract.js';
import type { ToolOutput } from '../lib/open-responses.js';
import { DETACHED_OUTPUT } from '../operators/detached-output.js';
import type {
  ExecutionErrorEvent,
  ExecutionProgressEvent,
  ExecutionQuestionEvent,
  ExecutionResultEvent,
} from '../operators/job.js';

/** The optional properties of a stub: everything of a {@link Tool} but its name and execute. */
export type StubProperties = Partial<Omit<Tool, 'name' | 'execute'>>;

/** What a stub's calls emit: one observable for every call, or one made per call. */
export type StubSource =
  Observable<ToolEvent> | ((call: ToolCall, context: ToolContext) => Observable<ToolEvent>);

/**
 * A tool whose every call emits `source`: with rxjs's TestScheduler, a `cold()` observable, whose
 * `subscriptions` then record when the engine started and stopped each call.
 *
 * ```ts
 * testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
 *   const a = cold('--a--(b|)', { a: progress('half'), b: final('done') });
 *   const read = stubTool('read', a, { resource: 'fs' });
 *   expectObservable(executeBatch([{ tool: read, call: { id: 'r1', args: '' } }])).toBe(
 *     '--p--(f|)',
 *     { p: progressEvent(0, 'r1', 'half'), f: finalEvent(0, 'r1', 'done') },
 *   );
 *   expectSubscriptions(a.subscriptions).toBe('^----!');
 * });
 * ```
 *
 * The same cold observable serves every call of the stub, so its `subscriptions` list one entry
 * per call, in the order the calls started; give each job its own stub to tell them apart, or pass
 * a function of the call. The stub does nothing else: no schema (it takes no arguments), no
 * validation, and `description` is "" unless given.
 *
 * @param name The tool's name.
 * @param source The events of each call, or a function of the call and its context returning them.
 * @param properties Anything else of the tool: `resource`, `sequential`, `description`, ...
 * @return The stub tool.
 */
export function stubTool(name: string, source: StubSource, properties: StubProperties = {}): Tool {
  const execute =
    typeof source === 'function' ? source : (_call: ToolCall, _context: ToolContext) => source;
  return { description: '', ...properties, name, execute };
}

function asResult(value: ToolOutput | ToolResult): ToolResult {
  return typeof value === 'string' || Array.isArray(value) ? { output: value } : value;
}

/** A progress event of a tool: `{ final: false, result }`; a string or parts become the output. */
export function progress(value: ToolOutput | ToolResult): ToolEvent {
  return { final: false, result: asResult(value) };
}

/** The final event of a tool: `{ final: true, result }`; a string or parts become the output. */
export function final(value: ToolOutput | ToolResult): ToolEvent {
  return { final: true, result: asResult(value) };
}

/** The progress event the engine emits for job `index`, as `expectObservable` should see it. */
export function progressEvent(
  index: number,
  callId: string,
  value: ToolOutput | ToolResult,
): ExecutionProgressEvent {
  return { index, callId, final: false, result: asResult(value) };
}

/** The final event of a job that succeeded, as `expectObservable` should see it. */
export function finalEvent(
  index: number,
  callId: string,
  value: ToolOutput | ToolResult,
): ExecutionResultEvent {
  return { index, callId, final: true, result: asResult(value) };
}

/**
 * The final event of a job that failed, as `expectObservable` should see it. Chai's deep equality
 * compares errors by name, message and code, so `new TimeoutError(30)` matches the engine's own.
 */
export function errorEvent(index: number, callId: string, error: Error): ExecutionErrorEvent {
  return { index, callId, final: true, error };
}

/**
 * A question event the engine emits for job `index`, as `expectObservable` should see it: asked
 * when `answer` is omitted, answered otherwise.
 */
export function questionEvent(
  index: number,
  callId: string,
  question: ElicitRequest,
  answer?: ElicitResult,
): ExecutionQuestionEvent {
  return answer === undefined
    ? { index, callId, final: false, question }
    : { index, callId, final: false, question, answer };
}

/**
 * The event the engine emits when a detached call of job `index` has started and runs on
 * (`Job.detach`, `Tool.detach`): its output, `DETACHED_OUTPUT`, is what the model reads for the
 * call this turn.
 */
export function detachedEvent(index: number, callId: string): ExecutionProgressEvent {
  return { index, callId, final: false, detached: true, result: { output: DETACHED_OUTPUT } };
}
