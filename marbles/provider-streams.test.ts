/**
 * The timing of calls from a provider's stream: each call is emitted at the frame of its last
 * piece, not at the stream's end; a stream that breaks mid-call errors after the calls completed
 * before it, without the broken one; unsubscribing stops reading the events.
 */
import {
  callsFromAnthropicStream,
  callsFromChatCompletionsStream,
  callsFromResponsesStream,
  type AnthropicStreamEvent,
  type ChatCompletionsChunk,
  type ResponsesStreamEvent,
} from '../operators/index.js';
import type { FunctionCallItem } from '../lib/open-responses.js';
import { testScheduler } from './support.js';

const add1: FunctionCallItem = {
  type: 'function_call',
  call_id: 'call_1',
  name: 'add',
  arguments: '{"a":1,"b":2}',
  id: 'fc_1',
  status: 'completed',
};
const read2: FunctionCallItem = {
  type: 'function_call',
  call_id: 'call_2',
  name: 'read',
  arguments: '{"path":"a.txt"}',
  id: 'fc_2',
  status: 'completed',
};

describe('callsFromResponsesStream: the moment each call completes', () => {
  const fc = (id: string, callId: string, name: string, status: string, args = '') => ({
    type: 'function_call',
    id,
    call_id: callId,
    name,
    arguments: args,
    status,
  });
  const events: Record<string, ResponsesStreamEvent> = {
    a: {
      type: 'response.output_item.added',
      output_index: 1,
      item: fc('fc_1', 'call_1', 'add', 'in_progress'),
    },
    e: {
      type: 'response.output_item.added',
      output_index: 2,
      item: fc('fc_2', 'call_2', 'read', 'in_progress'),
    },
    b: {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 1,
      delta: '{"a":1,',
    },
    c: {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 1,
      delta: '"b":2}',
    },
    f: {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_2',
      output_index: 2,
      delta: '{"path":"a.txt"}',
    },
    D: {
      type: 'response.function_call_arguments.done',
      item_id: 'fc_1',
      output_index: 1,
      arguments: '{"a":1,"b":2}',
    },
    E: {
      type: 'response.function_call_arguments.done',
      item_id: 'fc_2',
      output_index: 2,
      arguments: '{"path":"a.txt"}',
    },
    O: {
      type: 'response.output_item.done',
      output_index: 1,
      item: fc('fc_1', 'call_1', 'add', 'completed', '{"a":1,"b":2}'),
    },
    P: {
      type: 'response.output_item.done',
      output_index: 2,
      item: fc('fc_2', 'call_2', 'read', 'completed', '{"path":"a.txt"}'),
    },
    t: {
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      delta: 'Let me see.',
    },
    x: { type: 'response.completed', response: {} },
  };

  it('emits each call at its arguments’ done event, in completion order, once', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-t-a-e-b-f-E-c-D-O-P-x-|', events);
      const calls = '     -----------2---1-------|';
      expectObservable(callsFromResponsesStream(source)).toBe(calls, { 1: add1, 2: read2 });
    });
  });

  it('emits a call at its output_item.done when no arguments event came before', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-t-O-x-|', events);
      const calls = '     ---1---|';
      expectObservable(callsFromResponsesStream(source)).toBe(calls, { 1: add1 });
    });
  });

  it('errors after the calls completed before a break, without the broken call', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const broke = new Error('socket hang up');
      const source = cold('-a-e-b-c-D-f-#', events, broke);
      const calls = '     ---------1---#';
      expectObservable(callsFromResponsesStream(source)).toBe(calls, { 1: add1 }, broke);
    });
  });

  it('errors when the stream ends normally with a call still open', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-a-b-|', events);
      const calls = '     -----#';
      const ended = new Error(
        'Responses stream ended inside function_call "call_1" (add): its arguments never completed',
      );
      expectObservable(callsFromResponsesStream(source)).toBe(calls, {}, ended);
    });
  });

  it('stops reading the events when unsubscribed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-D-O-|', events);
      const unsub = '     ------!';
      expectObservable(callsFromResponsesStream(source), unsub).toBe('-------');
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
  });
});

describe('callsFromChatCompletionsStream: the moment each call completes', () => {
  const piece = (index: number, fn: { name?: string; arguments: string }, id?: string) => ({
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            id === undefined
              ? { index, function: fn }
              : { index, id, type: 'function', function: fn },
          ],
        },
        finish_reason: null,
      },
    ],
  });
  const chunks: Record<string, ChatCompletionsChunk> = {
    r: {
      choices: [
        { index: 0, delta: { role: 'assistant', content: '' } as object, finish_reason: null },
      ],
    },
    t: { choices: [{ index: 0, delta: { content: 'Adding.' } as object, finish_reason: null }] },
    0: piece(0, { name: 'add', arguments: '' }, 'call_1'),
    x: piece(0, { arguments: '{"a":1,' }),
    y: piece(0, { arguments: '"b":2}' }),
    1: piece(1, { name: 'read', arguments: '' }, 'call_2'),
    z: piece(1, { arguments: '{"path":"a.txt"}' }),
    o: {
      choices: [
        {
          index: 1,
          delta: {
            tool_calls: [{ index: 0, id: 'other', function: { name: 'add', arguments: '{}' } }],
          },
          finish_reason: null,
        },
      ],
    },
    f: { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    u: { choices: [] },
  };
  const call = (item: FunctionCallItem): FunctionCallItem => ({
    type: 'function_call',
    call_id: item.call_id,
    name: item.name,
    arguments: item.arguments,
    status: 'completed',
  });
  const values = { 1: call(add1), 2: call(read2) };

  it('completes a call when the next index starts, and the last at finish_reason', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-r-t-0-x-o-y-1-z-f-u-|', chunks);
      const calls = '     -------------1---2---|';
      expectObservable(callsFromChatCompletionsStream(source)).toBe(calls, values);
    });
  });

  it('completes the last call when the stream ends without a finish_reason', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-0-x-y-|', chunks);
      const calls = '     -------(1|)';
      expectObservable(callsFromChatCompletionsStream(source)).toBe(calls, values);
    });
  });

  it('errors after the calls completed before a break, without the broken call', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const broke = new Error('terminated');
      const source = cold('-0-x-y-1-#', chunks, broke);
      const calls = '     -------1-#';
      expectObservable(callsFromChatCompletionsStream(source)).toBe(calls, values, broke);
    });
  });

  it('errors when a piece goes back to a call already complete', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-0-x-1-y-|', chunks);
      const calls = '     -----1-#';
      const back = new Error(
        'Chat Completions stream: a piece of tool call 0 came after a later call had started',
      );
      // Call 0 looked complete when call 1 started: it went out with what it had then.
      const cut = { ...values[1], arguments: '{"a":1,' };
      expectObservable(callsFromChatCompletionsStream(source)).toBe(calls, { 1: cut }, back);
    });
  });

  it('stops reading the chunks when unsubscribed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-0-x-y-f-|', chunks);
      expectObservable(callsFromChatCompletionsStream(source), '----!').toBe('-----');
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });
});

describe('callsFromAnthropicStream: the moment each call completes', () => {
  const start = (index: number, id: string, name: string) => ({
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id, name, input: {} },
  });
  const json = (index: number, partial: string) => ({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json: partial },
  });
  const events: Record<string, AnthropicStreamEvent> = {
    s: { type: 'message_start' },
    t: { type: 'content_block_start', index: 0, content_block: { type: 'text' } },
    T: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Adding.' } },
    q: { type: 'content_block_stop', index: 0 },
    u: start(1, 'toolu_1', 'add'),
    j: json(1, '{"a":1,'),
    k: json(1, '"b":2}'),
    p: { type: 'content_block_stop', index: 1 },
    v: start(2, 'toolu_2', 'read'),
    l: json(2, '{"path":"a.txt"}'),
    w: { type: 'content_block_stop', index: 2 },
    n: start(3, 'toolu_3', 'now'),
    N: { type: 'content_block_stop', index: 3 },
    d: { type: 'message_delta' },
    m: { type: 'message_stop' },
  };
  const call = (id: string, name: string, args: string): FunctionCallItem => ({
    type: 'function_call',
    call_id: id,
    name,
    arguments: args,
    status: 'completed',
  });
  const values = {
    1: call('toolu_1', 'add', '{"a":1,"b":2}'),
    2: call('toolu_2', 'read', '{"path":"a.txt"}'),
    3: call('toolu_3', 'now', '{}'),
  };

  it('emits each call at its block’s stop; a block with no input piece gives its input', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-s-t-T-q-u-j-k-p-v-l-w-n-N-d-m-|', events);
      const calls = '     ---------------1-----2---3-----|';
      expectObservable(callsFromAnthropicStream(source)).toBe(calls, values);
    });
  });

  it('errors after the calls completed before a break, without the broken call', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const broke = new Error('terminated');
      const source = cold('-u-j-k-p-v-#', events, broke);
      const calls = '     -------1---#';
      expectObservable(callsFromAnthropicStream(source)).toBe(calls, values, broke);
    });
  });

  it('errors when the stream ends normally inside a tool_use block', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-u-j-|', events);
      const ended = new Error(
        'Anthropic stream ended inside tool_use block "toolu_1" (add): its input never completed',
      );
      expectObservable(callsFromAnthropicStream(source)).toBe('-----#', values, ended);
    });
  });

  it('stops reading the events when unsubscribed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-u-j-k-p-|', events);
      expectObservable(callsFromAnthropicStream(source), '--!').toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });
});

describe('calls from a provider’s stream: events that cannot make a call', () => {
  it('errors at a Responses error event or response.failed, after the calls before it', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const done: ResponsesStreamEvent = {
        type: 'response.output_item.done',
        output_index: 0,
        item: { type: 'function_call', call_id: 'call_1', name: 'add', arguments: '{}' },
      };
      const events: Record<string, ResponsesStreamEvent> = {
        d: done,
        e: {
          type: 'error',
          code: 'server_error',
          message: 'The server had an error',
        } as ResponsesStreamEvent,
        f: {
          type: 'response.failed',
          response: { error: { code: 'server_error', message: 'overloaded' } },
        },
      };
      const call = { type: 'function_call', call_id: 'call_1', name: 'add', arguments: '{}' };
      expectObservable(callsFromResponsesStream(cold('-d-e-d-|', events))).toBe(
        '-1-#',
        { 1: call },
        new Error('Responses stream failed: The server had an error'),
      );
      expectObservable(callsFromResponsesStream(cold('-d-f-|', events))).toBe(
        '-1-#',
        { 1: call },
        new Error('Responses stream failed: overloaded'),
      );
    });
  });

  it('errors, naming what is missing, for a call without its id', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const responses = cold<ResponsesStreamEvent>('-a-|', {
        a: { type: 'response.output_item.added', item: { type: 'function_call', name: 'add' } },
      });
      expectObservable(callsFromResponsesStream(responses)).toBe(
        '-#',
        {},
        new Error('Responses stream: a function_call item without call_id'),
      );
      const chunks = cold<ChatCompletionsChunk>('-a-|', {
        a: {
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { name: 'add', arguments: '{}' } }] },
              finish_reason: 'tool_calls',
            },
          ],
        },
      });
      expectObservable(callsFromChatCompletionsStream(chunks)).toBe(
        '-#',
        {},
        new Error('Chat Completions stream: tool call 0 has no id'),
      );
      const blocks = cold<AnthropicStreamEvent>('-a-|', {
        a: {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', name: 'add' },
        },
      });
      expectObservable(callsFromAnthropicStream(blocks)).toBe(
        '-#',
        {},
        new Error('Anthropic stream: a tool_use block without id'),
      );
    });
  });
});
