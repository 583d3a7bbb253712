/**
 * Chat Completions and Anthropic's Messages beside Open Responses: a round trip each, from the
 * tools of a request through an assistant message's calls to the result messages of the next
 * request, with the shapes the `openai` and `@anthropic-ai/sdk` packages give and take.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { expect } from 'chai';
import { z } from 'zod';
import {
  anthropicTools,
  batchResults,
  chatCompletionsTools,
  detachedResultBlocks,
  detachedResultMessage,
  imagePart,
  jobsFromToolCalls,
  jobsFromToolUses,
  partsResult,
  textPart,
  toToolMessages,
  toToolResults,
  tool,
  ToolSet,
} from '../../index.js';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  strict: true,
  execute: ({ a, b }) => String(a + b),
});
const shot = tool({
  name: 'shot',
  description: 'A picture and what it shows.',
  execute: () =>
    partsResult([
      textPart('a red dot'),
      imagePart({ data: 'iVBORw0KGgo=', mimeType: 'image/png' }),
      imagePart('https://example.test/dot.png'),
      {
        type: 'input_file',
        filename: 'report.pdf',
        file_data: 'data:application/pdf;base64,JVBERi0=',
      },
      { type: 'input_file', filename: 'notes.txt', file_data: 'data:text/plain;base64,aGk=' },
    ]),
});
const tools = new ToolSet([add, shot]);

describe('Chat Completions: tools, tool calls in, tool messages out', () => {
  it('defines each tool as a function with its schema and strict flag', () => {
    const [addDef, shotDef] = chatCompletionsTools(tools);
    expect(addDef).to.deep.equal({
      type: 'function',
      function: {
        name: 'add',
        description: 'Adds two numbers.',
        parameters: add.parameters,
        strict: true,
      },
    });
    expect(shotDef!.function.strict).to.equal(false);
    expect(shotDef!.function.parameters).to.deep.equal({
      type: 'object',
      properties: {},
      required: [],
    });
  });

  it('runs an assistant message’s calls and answers each with a tool message, in order', async () => {
    const message: OpenAI.Chat.Completions.ChatCompletionMessage = {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        { id: 'c2', type: 'function', function: { name: 'add', arguments: '{"a":"x","b":3}' } },
        { id: 'c3', type: 'function', function: { name: 'nope', arguments: '{}' } },
        { id: 'c4', type: 'custom', custom: { name: 'grammar', input: 'x' } },
        { id: 'c5', type: 'function', function: { name: 'shot', arguments: '' } },
      ],
    };
    const jobs = jobsFromToolCalls(message, tools);
    expect(jobs.map((j) => j.call.id)).to.deep.equal(['c1', 'c2', 'c3', 'c4', 'c5']);
    const out = toToolMessages(jobs, await batchResults(jobs));
    expect(out.slice(0, 4)).to.deep.equal([
      { role: 'tool', tool_call_id: 'c1', content: '5' },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content: 'Error: invalid arguments: a: expected number, got "x"',
      },
      {
        role: 'tool',
        tool_call_id: 'c3',
        content: 'Error: no tool for call "c3": unknown tool "nope"',
      },
      {
        role: 'tool',
        tool_call_id: 'c4',
        content: 'Error: not a function call: a "custom" tool call is not one of these tools',
      },
    ]);
    // A tool message carries text only: an image or a file is a line that names it.
    expect(out[4]!.content).to.deep.equal([
      { type: 'text', text: 'a red dot' },
      { type: 'text', text: '[image]' },
      { type: 'text', text: '[image at https://example.test/dot.png]' },
      { type: 'text', text: '[file report.pdf]' },
      { type: 'text', text: '[file notes.txt]' },
    ]);
  });

  it('takes a message without tool calls for none, and refuses results that do not match', () => {
    expect(jobsFromToolCalls({ tool_calls: null }, tools)).to.deep.equal([]);
    expect(jobsFromToolCalls({}, tools)).to.deep.equal([]);
    const jobs = jobsFromToolCalls(
      { tool_calls: [{ id: 'a', type: 'function', function: { name: 'add', arguments: '{}' } }] },
      tools,
    );
    expect(() => toToolMessages(jobs, [])).to.throw(
      RangeError,
      'toToolMessages: 1 jobs but 0 results',
    );
  });
});

describe('Anthropic Messages: tools, tool_use blocks in, tool_result blocks out', () => {
  it('defines each tool with its input_schema, strict only for a strict tool', () => {
    const [addDef, shotDef] = anthropicTools(tools);
    expect(addDef).to.deep.equal({
      name: 'add',
      description: 'Adds two numbers.',
      input_schema: add.parameters,
      strict: true,
    });
    expect(shotDef).to.deep.equal({
      name: 'shot',
      description: 'A picture and what it shows.',
      input_schema: { type: 'object', properties: {}, required: [] },
    });
  });

  it('runs a response’s tool_use blocks and answers each with a tool_result, in order', async () => {
    const content: Anthropic.Messages.ContentBlock[] = [
      { type: 'text', text: 'Let me add.', citations: null },
      {
        type: 'tool_use',
        id: 'tu1',
        name: 'add',
        input: { a: 2, b: 3 },
        caller: { type: 'direct' },
      },
      {
        type: 'tool_use',
        id: 'tu2',
        name: 'add',
        input: { a: 'x', b: 3 },
        caller: { type: 'direct' },
      },
      { type: 'tool_use', id: 'tu3', name: 'shot', input: {}, caller: { type: 'direct' } },
    ];
    const jobs = jobsFromToolUses(content, tools);
    expect(jobs.map((j) => [j.call.id, j.call.args])).to.deep.equal([
      ['tu1', '{"a":2,"b":3}'],
      ['tu2', '{"a":"x","b":3}'],
      ['tu3', '{}'],
    ]);
    const results = toToolResults(jobs, await batchResults(jobs));
    expect(results.slice(0, 2)).to.deep.equal([
      { type: 'tool_result', tool_use_id: 'tu1', content: '5' },
      {
        type: 'tool_result',
        tool_use_id: 'tu2',
        content: 'Error: invalid arguments: a: expected number, got "x"',
        is_error: true,
      },
    ]);
    expect(results[2]!.content).to.deep.equal([
      { type: 'text', text: 'a red dot' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.test/dot.png' } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
        title: 'report.pdf',
      },
      { type: 'text', text: '[file notes.txt]' },
    ]);
  });

  it('fails a call whose input no JSON can hold, and only it', async () => {
    const jobs = jobsFromToolUses(
      [
        { type: 'tool_use', id: 'big', name: 'add', input: { a: 1n } },
        { type: 'tool_use', id: 'ok', name: 'add', input: { a: 1, b: 1 } },
      ],
      tools,
    );
    const results = toToolResults(jobs, await batchResults(jobs));
    expect(results[0]!.is_error).to.equal(true);
    expect(results[0]!.content).to.match(/^Error: tool_use input is not JSON: /);
    expect(results[1]!.content).to.equal('2');
  });
});

describe('A detached call’s later result, in each format', () => {
  const report = tool({
    name: 'build_report',
    description: 'Builds a report.',
    parameters: z.object({}),
    detach: true,
    execute: () => 'done',
  });
  const jobs = [{ tool: report, call: { id: 'c1', args: '{}' } }];
  const image = imagePart('data:image/png;base64,AA==');

  it('is a user message of text for Chat Completions, an image as a line naming it', () => {
    const text: OpenAI.Chat.Completions.ChatCompletionMessageParam = detachedResultMessage(
      { index: 0, callId: 'c1', final: true, result: { output: 'report for Q3' } },
      jobs,
    );
    expect(text).to.deep.equal({
      role: 'user',
      content: 'The background call "c1" (build_report) finished: report for Q3',
    });
    const parts = detachedResultMessage(
      { index: 0, callId: 'c1', final: true, result: partsResult([textPart('chart'), image]) },
      jobs,
    );
    expect(parts.content).to.have.length(3);
    expect((parts.content as { text: string }[])[0]!.text).to.equal(
      'The background call "c1" (build_report) finished:',
    );
  });

  it('is blocks of a later user message for Anthropic, an image as an image block', () => {
    const failed = detachedResultBlocks(
      { index: 0, callId: 'c1', final: true, error: new Error('disk full') },
      jobs,
    );
    expect(failed).to.deep.equal([
      { type: 'text', text: 'The background call "c1" (build_report) failed: disk full' },
    ]);
    const blocks = detachedResultBlocks(
      { index: 0, callId: 'c1', final: true, result: partsResult([image]) },
      jobs,
    );
    const message: Anthropic.Messages.MessageParam = { role: 'user', content: blocks };
    expect(message.content).to.deep.equal([
      { type: 'text', text: 'The background call "c1" (build_report) finished:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } },
    ]);
  });
});
