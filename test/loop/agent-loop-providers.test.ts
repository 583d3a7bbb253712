/**
 * agentLoop with the providers' own clients: `openai` (Responses and Chat Completions) and
 * `@anthropic-ai/sdk`, streaming recorded events from a loopback server. What each turn sends
 * back is read off the requests the server received.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import {
  agentLoop,
  anthropicTools,
  chatCompletionsTools,
  tool,
  ToolSet,
  type AnthropicMessage,
  type ChatCompletionsMessage,
  type LoopEvent,
  type ResponsesItem,
} from '../../index.js';
import { anthropicEvents, ReplayModel, responsesEvents } from '../../examples/replay-model.js';

const cities: string[] = [];
const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => {
    cities.push(city);
    return `sunny in ${city}`;
  },
});
const tools = new ToolSet([weather]);

function replay(streams: ConstructorParameters<typeof ReplayModel>[0]): ReplayModel {
  const model = new ReplayModel(streams);
  after(() => model.stop());
  return model;
}

const fcItem = (args: string) => ({
  type: 'function_call',
  id: 'fc_1',
  call_id: 'call_1',
  name: 'weather',
  arguments: args,
  status: 'completed',
});

/** The `message_start` event of an Anthropic message. */
const messageStart = (id: string) => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'c',
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  },
});

describe('agentLoop with the openai client (Responses)', () => {
  it('runs the call the model streamed and sends its output in the next request', async () => {
    cities.length = 0;
    const message = {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }],
    };
    const server = replay([
      {
        events: responsesEvents([
          {
            type: 'response.output_text.delta',
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            delta: 'Let me ',
          },
          {
            type: 'response.output_text.delta',
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            delta: 'check.',
          },
          { type: 'response.output_item.done', output_index: 0, item: message },
          {
            type: 'response.output_item.added',
            output_index: 1,
            item: { ...fcItem(''), status: 'in_progress' },
          },
          ...['{"ci', 'ty":"Pa', 'ris"}'].map((delta) => ({
            type: 'response.function_call_arguments.delta',
            item_id: 'fc_1',
            output_index: 1,
            delta,
          })),
          { type: 'response.output_item.done', output_index: 1, item: fcItem('{"city":"Paris"}') },
          {
            type: 'response.completed',
            response: { id: 'resp_1', status: 'completed', output: [] },
          },
        ]),
      },
      {
        events: responsesEvents([
          {
            type: 'response.output_text.delta',
            item_id: 'msg_2',
            output_index: 0,
            content_index: 0,
            delta: 'Sunny.',
          },
          {
            type: 'response.completed',
            response: { id: 'resp_2', status: 'completed', output: [] },
          },
        ]),
      },
    ]);
    const client = new OpenAI({ apiKey: 'test', baseURL: await server.start(), maxRetries: 0 });
    const input: ResponsesItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const events = await lastValueFrom(
      agentLoop({
        model: (items, signal) =>
          client.responses.create(
            {
              model: 'gpt-test',
              input: items as OpenAI.Responses.ResponseInput,
              tools: tools.definitions(),
              stream: true,
            },
            { signal },
          ),
        tools,
        input,
      }).pipe(toArray()),
    );
    expect(cities).to.deep.equal(['Paris']);
    const text = events
      .filter((e) => e.type === 'text-delta')
      .map((e) => (e as { delta: string }).delta);
    expect(text).to.deep.equal(['Let me ', 'check.', 'Sunny.']);
    const deltas = events
      .filter((e) => e.type === 'call-delta')
      .map((e) => (e as { delta: string }).delta);
    expect(deltas.join('')).to.equal('{"city":"Paris"}');
    const second = server.bodies[1] as { input: unknown[] };
    expect(second.input).to.deep.equal([
      { role: 'user', content: 'Weather in Paris?' },
      message,
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny in Paris' },
    ]);
    expect(events.at(-1)).to.include({ type: 'loop-end', reason: 'done', turns: 2 });
  });

  it('a stream cut mid-call errors the loop and never runs the call', async () => {
    cities.length = 0;
    const server = replay([
      {
        events: responsesEvents([
          {
            type: 'response.output_item.added',
            output_index: 0,
            item: { ...fcItem(''), status: 'in_progress' },
          },
          {
            type: 'response.function_call_arguments.delta',
            item_id: 'fc_1',
            output_index: 0,
            delta: '{"city":',
          },
        ]),
        breakAfter: true,
      },
    ]);
    const client = new OpenAI({ apiKey: 'test', baseURL: await server.start(), maxRetries: 0 });
    const events: LoopEvent[] = [];
    const error = await new Promise<unknown>((resolve) =>
      agentLoop({
        model: (items, signal) =>
          client.responses.create(
            { model: 'gpt-test', input: items as OpenAI.Responses.ResponseInput, stream: true },
            { signal },
          ),
        tools,
        input: [{ role: 'user', content: 'Weather?' }],
      }).subscribe({
        next: (e) => events.push(e),
        error: resolve,
        complete: () => resolve(undefined),
      }),
    );
    expect(error).to.be.instanceOf(Error);
    expect(events.map((e) => e.type)).to.deep.equal(['turn-start', 'call-start', 'call-delta']);
    expect(cities).to.deep.equal([]);
  });
});

describe('agentLoop with the openai client (Chat Completions)', () => {
  it('reads tool calls by index and sends tool messages back', async () => {
    cities.length = 0;
    const chunk = (delta: object, finish: string | null = null) => ({
      data: {
        id: 'chatcmpl_1',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: finish }],
      },
    });
    const call = (index: number, id: string, city: string) => [
      chunk({
        tool_calls: [{ index, id, type: 'function', function: { name: 'weather', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: `{"city":` } }] }),
      chunk({ tool_calls: [{ index, function: { arguments: `"${city}"}` } }] }),
    ];
    const server = replay([
      {
        events: [
          chunk({ role: 'assistant', content: 'Checking.' }),
          ...call(0, 'a', 'Oslo'),
          ...call(1, 'b', 'Rome'),
          chunk({}, 'tool_calls'),
        ],
        done: true,
      },
      { events: [chunk({ content: 'Done.' }), chunk({}, 'stop')], done: true },
    ]);
    const client = new OpenAI({ apiKey: 'test', baseURL: await server.start(), maxRetries: 0 });
    const input: ChatCompletionsMessage[] = [{ role: 'user', content: 'Oslo and Rome?' }];
    const events = await lastValueFrom(
      agentLoop({
        format: 'chat-completions',
        model: (messages, signal) =>
          client.chat.completions.create(
            {
              model: 'gpt-test',
              messages: messages as OpenAI.Chat.ChatCompletionMessageParam[],
              tools: chatCompletionsTools(tools),
              stream: true,
            },
            { signal },
          ),
        tools,
        input,
      }).pipe(toArray()),
    );
    expect(cities).to.deep.equal(['Oslo', 'Rome']);
    const second = server.bodies[1] as { messages: unknown[] };
    expect(second.messages).to.deep.equal([
      { role: 'user', content: 'Oslo and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'a',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
          {
            id: 'b',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'sunny in Oslo' },
      { role: 'tool', tool_call_id: 'b', content: 'sunny in Rome' },
    ]);
    expect(events.at(-1)).to.include({ type: 'loop-end', reason: 'done' });
  });
});

describe('agentLoop with the @anthropic-ai/sdk client', () => {
  it('reads tool_use blocks and sends tool_result blocks back', async () => {
    cities.length = 0;
    const server = replay([
      {
        events: anthropicEvents([
          messageStart('msg_1'),
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'On it.' } },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'tu_1', name: 'weather', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"city"' },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: ':"Lima"}' },
          },
          { type: 'content_block_stop', index: 1 },
          {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use', stop_sequence: null },
            usage: { output_tokens: 5 },
          },
          { type: 'message_stop' },
        ]),
      },
      {
        events: anthropicEvents([
          messageStart('msg_2'),
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Sunny.' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_stop' },
        ]),
      },
    ]);
    const client = new Anthropic({ apiKey: 'test', baseURL: await server.start(), maxRetries: 0 });
    const input: AnthropicMessage[] = [{ role: 'user', content: 'Lima?' }];
    const events = await lastValueFrom(
      agentLoop({
        format: 'anthropic',
        model: (messages, signal) =>
          client.messages.create(
            {
              model: 'claude-test',
              max_tokens: 100,
              messages: messages as Anthropic.MessageParam[],
              tools: anthropicTools(tools) as Anthropic.Tool[],
              stream: true,
            },
            { signal },
          ),
        tools,
        input,
      }).pipe(toArray()),
    );
    expect(cities).to.deep.equal(['Lima']);
    const second = server.bodies[1] as { messages: unknown[] };
    expect(second.messages).to.deep.equal([
      { role: 'user', content: 'Lima?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'On it.' },
          { type: 'tool_use', id: 'tu_1', name: 'weather', input: { city: 'Lima' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'sunny in Lima' }],
      },
    ]);
    expect(events.at(-1)).to.include({ type: 'loop-end', reason: 'done' });
  });
});
