/**
 * The official `openai` SDK's Responses types meet this package's without a cast: a response's
 * output goes into `jobsFromItems`, and `toOutputItems` goes back into the next request's input.
 * Checked by `npm run typecheck` (nothing here runs).
 */
import type OpenAI from 'openai';
import { expectTypeOf } from 'expect-type';
import {
  jobsFromItems,
  toOutputItems,
  type Job,
  type SettledResult,
  type ToolSet,
} from '../../index.js';

declare const response: OpenAI.Responses.Response;
declare const toolSet: ToolSet;
declare const settled: SettledResult[];

// The headline use: a response's output items, straight in.
const jobs = jobsFromItems(response.output, toolSet);
expectTypeOf(jobs).toEqualTypeOf<Job[]>();

// One item of any kind the SDK defines, and the output of a streamed response's final event.
expectTypeOf(jobsFromItems).toBeCallableWith([response.output[0]!], toolSet);
declare const completed: OpenAI.Responses.ResponseCompletedEvent;
expectTypeOf(jobsFromItems).toBeCallableWith(completed.response.output, toolSet);

// The way back: function_call_output items are input items of the next request.
const input: OpenAI.Responses.ResponseInput = [];
input.push(...toOutputItems(jobs, settled));
expectTypeOf(toOutputItems(jobs, settled)).items.toExtend<OpenAI.Responses.ResponseInputItem>();

// Items written out by hand, with fields of their own, still fit.
expectTypeOf(jobsFromItems).toBeCallableWith(
  [
    { type: 'message', role: 'assistant', content: [] },
    { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' },
  ],
  toolSet,
);

// The tools of a request: `definitions()` goes straight into `tools`, for Responses and for Chat
// Completions' function definitions alike (the SDK's `strict` is a required `boolean | null`).
declare const client: OpenAI;
void client.responses.create({ model: 'gpt-5', input: [], tools: toolSet.definitions() });
expectTypeOf(toolSet.definitions()).items.toExtend<OpenAI.Responses.FunctionTool>();
