/**
 * Calls from a provider's stream, read through the real `openai` and `@anthropic-ai/sdk`
 * clients from a loopback server that replays recorded SSE streams (test/support/sse-replay.ts):
 * calls split over many pieces, two calls with text between them, a connection that breaks
 * mid-call, a stream held open after the first call (that call is out before the rest arrives),
 * unsubscribing (the request is dropped), and the calls run by executeCalls as they come.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { expect } from 'chai';
import { lastValueFrom, map, toArray, type Observable } from 'rxjs';
import { z } from 'zod';
import {
  callsFromAnthropicStream,
  callsFromChatCompletionsStream,
  callsFromResponsesStream,
  executeCalls,
  jobsFromItems,
  tool,
  ToolSet,
  type ExecutionEvent,
  type FunctionCallItem,
} from '../../index.js';
import { serveSse, type Replay, type SseReplay } from '../support/sse-replay.js';

interface Provider {
  name: string;
  file: string;
  /** The calls the whole fixture holds, in order. */
  calls: FunctionCallItem[];
  /** Text in an event in the middle of the second call's arguments. */
  insideSecondCall: string;
  /** Text in the event that completes the first call. */
  firstCallDone: string;
  /** The calls of the stream the client at `url` reads. */
  calls$(url: string): Promise<Observable<FunctionCallItem>>;
}

const openai = (url: string): OpenAI => new OpenAI({ apiKey: 'test', baseURL: url, maxRetries: 0 });
const anthropic = (url: string): Anthropic =>
  new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 0 });
const call = (call_id: string, name: string, args: string): FunctionCallItem => ({
  type: 'function_call',
  call_id,
  name,
  arguments: args,
  status: 'completed',
});

const providers: Provider[] = [
  {
    name: 'Responses',
    file: 'responses-two-calls.sse',
    calls: [
      { ...call('call_Qx7eA1', 'add', '{"a":40,"b":2}'), id: 'fc_68a2', status: 'completed' },
      {
        ...call('call_Rk2fB9', 'read', '{"path":"notes/todo.txt"}'),
        id: 'fc_68a4',
        status: 'completed',
      },
    ],
    insideSecondCall: '"item_id":"fc_68a4","output_index":3,"delta"',
    firstCallDone: '"response.function_call_arguments.done","item_id":"fc_68a2"',
    calls$: async (url) =>
      callsFromResponsesStream(
        await openai(url).responses.create({
          model: 'gpt-5',
          input: 'Add, then read.',
          stream: true,
        }),
      ),
  },
  {
    name: 'Chat Completions',
    file: 'chat-parallel-calls.sse',
    calls: [
      call('call_Wm3nC0', 'add', '{"a":40,"b":2}'),
      call('call_Zp8dD4', 'read', '{"path":"notes/todo.txt"}'),
    ],
    insideSecondCall: '"index":1,"function":{"arguments"',
    firstCallDone: '"index":1,"id":"call_Zp8dD4"',
    calls$: async (url) =>
      callsFromChatCompletionsStream(
        await openai(url).chat.completions.create({
          model: 'gpt-4.1',
          messages: [{ role: 'user', content: 'Add, then read.' }],
          stream: true,
        }),
      ),
  },
  {
    name: 'Anthropic Messages',
    file: 'anthropic-tool-uses.sse',
    calls: [
      call('toolu_01A09q90qw90lq917835lq9', 'add', '{"a": 40, "b": 2}'),
      call('toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'read', '{"path": "notes/todo.txt"}'),
    ],
    insideSecondCall: '"index":3,"delta":{"type":"input_json_delta","partial_json":"{',
    firstCallDone: '"type":"content_block_stop","index":1}',
    calls$: async (url) =>
      callsFromAnthropicStream(
        await anthropic(url).messages.create({
          model: 'claude-sonnet-4-5',
          max_tokens: 1024,
          messages: [{ role: 'user', content: 'Add, then read.' }],
          stream: true,
        }),
      ),
  },
];

/** What an Observable emitted until it ended, and the error it ended with, if any. */
async function settle<T>(source: Observable<T>): Promise<{ values: T[]; error?: unknown }> {
  const values: T[] = [];
  return new Promise((resolve) => {
    source.subscribe({
      next: (value) => values.push(value),
      error: (error: unknown) => resolve({ values, error }),
      complete: () => resolve({ values }),
    });
  });
}

describe('calls from a provider’s stream, through the real SDK clients', () => {
  let server: SseReplay | undefined;
  const serve = async (replay: Replay): Promise<SseReplay> => (server = await serveSse(replay));
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const provider of providers)
    describe(provider.name, () => {
      it('gives each call whole, from its many pieces, and skips the text around them', async () => {
        const { url, bodies } = await serve({ file: provider.file });
        const { values, error } = await settle(await provider.calls$(url));
        expect(error).to.equal(undefined);
        expect(values).to.deep.equal(provider.calls);
        expect(bodies).to.have.length(1);
        expect(bodies[0]).to.include({ stream: true });
      });

      it('gives a call before the rest of the stream has arrived', async () => {
        const { url, resume } = await serve({
          file: provider.file,
          holdAfter: provider.firstCallDone,
        });
        const seen: FunctionCallItem[] = [];
        const ended = new Promise<void>((resolve, reject) => {
          void provider.calls$(url).then((calls$) =>
            calls$.subscribe({
              next: (item) => {
                seen.push(item);
                // The server holds the rest until this first call is out.
                if (seen.length === 1) resume();
              },
              error: reject,
              complete: resolve,
            }),
          );
        });
        await ended;
        expect(seen).to.deep.equal(provider.calls);
      });

      it('breaks mid-call: the earlier call comes, the broken one does not, then the error', async () => {
        const { url } = await serve({
          file: provider.file,
          breakInside: provider.insideSecondCall,
        });
        const { values, error } = await settle(await provider.calls$(url));
        expect(values).to.deep.equal(provider.calls.slice(0, 1));
        expect(error).to.be.instanceOf(Error);
        expect((error as Error).message).to.not.match(/ended inside/);
      });

      it('drops the request when unsubscribed mid-stream', async () => {
        const replay = await serve({ file: provider.file, holdAfter: provider.firstCallDone });
        const calls$ = await provider.calls$(replay.url);
        // Unsubscribed a turn later, when the SDK is waiting on the network (not stopped at
        // the event it just gave, where its iterator's return() alone would end it).
        const subscription = calls$.subscribe((item) => {
          if (item.call_id === provider.calls[0]!.call_id)
            setImmediate(() => subscription.unsubscribe());
        });
        // Resolves when the client closes the connection of a stream the server still holds.
        await replay.dropped;
        expect(subscription.closed).to.equal(true);
      });
    });

  it('reads Anthropic’s messages.stream() helper as it reads a raw stream', async () => {
    const { url } = await serve({ file: 'anthropic-tool-uses.sse' });
    const stream = anthropic(url).messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Add, then read.' }],
    });
    const { values, error } = await settle(callsFromAnthropicStream(stream));
    expect(error).to.equal(undefined);
    expect(values).to.deep.equal(providers[2]!.calls);
  });
});

describe('calls from a provider’s stream run by executeCalls as they arrive', () => {
  const ran: unknown[] = [];
  const tools = new ToolSet([
    tool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: (args) => {
        ran.push({ add: args });
        return String(args.a + args.b);
      },
    }),
    tool({
      name: 'read',
      description: 'Reads a file.',
      parameters: z.object({ path: z.string() }),
      execute: (args) => {
        ran.push({ read: args });
        return `contents of ${args.path}`;
      },
    }),
  ]);
  let server: SseReplay | undefined;
  beforeEach(() => (ran.length = 0));
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function finals(calls$: Observable<FunctionCallItem>): Promise<ExecutionEvent[]> {
    const events = await lastValueFrom(
      calls$.pipe(
        map((item) => jobsFromItems([item], tools)[0]!),
        executeCalls(),
        toArray(),
      ),
    );
    return events.filter((event) => event.final);
  }

  it('runs each call with the arguments the model streamed', async () => {
    server = await serveSse({ file: 'responses-two-calls.sse' });
    const stream = await openai(server.url).responses.create({
      model: 'gpt-5',
      input: 'Add, then read.',
      stream: true,
    });
    const events = await finals(callsFromResponsesStream(stream));
    expect(ran).to.deep.equal([{ add: { a: 40, b: 2 } }, { read: { path: 'notes/todo.txt' } }]);
    expect(events.map((event) => [event.callId, event.result?.output])).to.deep.equal([
      ['call_Qx7eA1', '42'],
      ['call_Rk2fB9', 'contents of notes/todo.txt'],
    ]);
  });

  it('answers a call whose arguments were cut short with the JSON error the model reads', async () => {
    server = await serveSse({ file: 'chat-cut-arguments.sse' });
    const stream = await openai(server.url).chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Add.' }],
      stream: true,
    });
    const [event] = await finals(callsFromChatCompletionsStream(stream));
    expect(ran).to.deep.equal([]);
    expect(event!.callId).to.equal('call_Bd1eE7');
    expect(event!.error?.message).to.match(/^invalid arguments: not valid JSON: /);
  });
});
