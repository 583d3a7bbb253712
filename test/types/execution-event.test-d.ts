/**
 * Type tests, checked by `npm run typecheck` (never run): what `ExecutionEvent` narrows to, which
 * events cannot be written, and the operators' signatures. A wrong expectation fails the typecheck.
 */
import { expectTypeOf } from 'expect-type';
import type { Observable, OperatorFunction } from 'rxjs';
import {
  type BatchOptions,
  batchResults,
  chains,
  executeBatch,
  executeCalls,
  jobsFromItems,
  toOutputItems,
  type ExecuteOptions,
  type ExecutionErrorEvent,
  type ExecutionEvent,
  type ExecutionProgressEvent,
  type ExecutionQuestionEvent,
  type ElicitRequest,
  type ElicitResult,
  type ExecutionResultEvent,
  type FunctionCallOutputItem,
  type Job,
  type OutputItem,
  type SettledResult,
  type ToolResult,
  type ToolSet,
} from '../../index.js';

declare const event: ExecutionEvent;

// Narrowing on `final` and on the absence of `error` leaves a result.
if (event.final && event.error === undefined) {
  expectTypeOf(event).toEqualTypeOf<ExecutionResultEvent>();
  expectTypeOf(event.result).toEqualTypeOf<ToolResult>();
}
if (event.final && event.error !== undefined) {
  expectTypeOf(event).toEqualTypeOf<ExecutionErrorEvent>();
  expectTypeOf(event.error).toEqualTypeOf<Error>();
  expectTypeOf(event.result).toEqualTypeOf<undefined>();
}
if (!event.final && event.question === undefined) {
  expectTypeOf(event).toEqualTypeOf<ExecutionProgressEvent>();
  expectTypeOf(event.result).toEqualTypeOf<ToolResult>();
}
// A detached call's event is progress: its result is what the model reads this turn.
if (event.detached === true) {
  expectTypeOf(event).toEqualTypeOf<ExecutionProgressEvent>();
  expectTypeOf(event.final).toEqualTypeOf<false>();
  expectTypeOf(event.result).toEqualTypeOf<ToolResult>();
}
if (event.question !== undefined) {
  expectTypeOf(event).toEqualTypeOf<ExecutionQuestionEvent>();
  expectTypeOf(event.final).toEqualTypeOf<false>();
  expectTypeOf(event.question).toEqualTypeOf<ElicitRequest>();
  expectTypeOf(event.answer).toEqualTypeOf<ElicitResult | undefined>();
  expectTypeOf(event.result).toEqualTypeOf<undefined>();
}
expectTypeOf(event.final).toEqualTypeOf<boolean>();
expectTypeOf(event.index).toEqualTypeOf<number>();
expectTypeOf(event.callId).toEqualTypeOf<string>();

// Events that cannot happen do not type-check.
const result: ToolResult = { output: 'ok' };
// @ts-expect-error a final event with both a result and an error
const _both: ExecutionEvent = { index: 0, callId: 'a', final: true, result, error: new Error() };
// @ts-expect-error a final event with neither
const _neither: ExecutionEvent = { index: 0, callId: 'a', final: true };
// @ts-expect-error progress carrying an error
const _progressError: ExecutionEvent = { index: 0, callId: 'a', final: false, error: new Error() };
// @ts-expect-error progress without a result
const _emptyProgress: ExecutionEvent = { index: 0, callId: 'a', final: false };
const question = { message: 'Which?', schema: { type: 'object' as const, properties: {} } };
// @ts-expect-error a final event carrying a question
const _finalQuestion: ExecutionEvent = { index: 0, callId: 'a', final: true, result, question };
// @ts-expect-error a question carrying a result
const _questionResult: ExecutionEvent = { index: 0, callId: 'a', final: false, result, question };
const _fine: ExecutionEvent[] = [
  { index: 0, callId: 'a', final: false, result },
  { index: 0, callId: 'a', final: true, result },
  { index: 0, callId: 'a', final: true, error: new Error('no') },
  { index: 0, callId: 'a', final: false, question },
  { index: 0, callId: 'a', final: false, question, answer: { action: 'decline' } },
];

// The operators' signatures.
expectTypeOf(executeBatch).parameters.toEqualTypeOf<
  [jobs: readonly Job[], options?: BatchOptions]
>();
expectTypeOf(executeBatch).returns.toEqualTypeOf<Observable<ExecutionEvent>>();
expectTypeOf(executeCalls).parameters.toEqualTypeOf<[options?: ExecuteOptions]>();
expectTypeOf(executeCalls).returns.toEqualTypeOf<OperatorFunction<Job, ExecutionEvent>>();
expectTypeOf(batchResults).parameters.toEqualTypeOf<
  [jobs: readonly Job[], options?: BatchOptions]
>();
expectTypeOf(batchResults).returns.toEqualTypeOf<Promise<SettledResult[]>>();
expectTypeOf(chains).returns.toEqualTypeOf<number[][]>();
expectTypeOf(jobsFromItems).parameters.toEqualTypeOf<
  [items: Iterable<OutputItem>, tools: Pick<ToolSet, 'lookup'>]
>();
expectTypeOf(jobsFromItems).returns.toEqualTypeOf<Job[]>();
expectTypeOf(toOutputItems).parameters.toEqualTypeOf<
  [jobs: readonly Job[], settled: readonly SettledResult[]]
>();
expectTypeOf(toOutputItems).returns.toEqualTypeOf<FunctionCallOutputItem[]>();

// A settled entry is a result or an error, never both, and narrows on either field.
declare const settled: SettledResult;
if (settled.error !== undefined) expectTypeOf(settled.error).toEqualTypeOf<Error>();
else expectTypeOf(settled.result).toEqualTypeOf<ToolResult>();
if (settled.result !== undefined) expectTypeOf(settled.result).toEqualTypeOf<ToolResult>();
// @ts-expect-error: an entry with both is not one
const both: SettledResult = { result: { output: '' }, error: new Error() };
void both;

// The option an application reports teardown errors through.
expectTypeOf<ExecuteOptions['onTeardownError']>().toEqualTypeOf<
  ((error: unknown, job: Job, index: number) => void) | undefined
>();
