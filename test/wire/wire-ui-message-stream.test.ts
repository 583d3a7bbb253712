import {
  AbstractChat,
  DefaultChatTransport,
  parseJsonEventStream,
  readUIMessageStream,
  UI_MESSAGE_STREAM_HEADERS as AI_SDK_HEADERS,
  uiMessageChunkSchema,
  type ChatState,
  type UIMessage,
  type UIMessageChunk as AiUIMessageChunk,
} from 'ai';
import { expect } from 'chai';
import { concat, from, lastValueFrom, type Observable, Subject, throwError, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { LoopEvent } from '../../operators/loop-events.js';
import {
  approvalResponses,
  pipeUIMessageStream,
  toUIMessageStream,
  uiMessageStreamResponse,
  type UIMessageChunk,
} from '../../adapters/wire/index.js';
import { conversation, deploy, functionCall, question } from '../support/loop-conversation.js';
import { readable } from '../support/front-readers.js';
import { cancelledBody, disconnected, loopServer } from '../support/loop-http.js';
import { until } from '../support/until.js';

/** Every message `readUIMessageStream` rebuilds from the chunks, as JSON (what a client stores). */
async function snapshots(chunks$: Observable<UIMessageChunk>, errors: Error[] = []) {
  const stream = readable(chunks$) as ReadableStream<AiUIMessageChunk>;
  const out: UIMessage[] = [];
  for await (const message of readUIMessageStream({
    stream,
    onError: (e) => errors.push(e as Error),
  }))
    out.push(JSON.parse(JSON.stringify(message)) as UIMessage);
  return out;
}

/** `values` without a value equal to the one before it: what a viewer sees change. */
function changes<T>(values: readonly T[]): T[] {
  return values.filter((v, i) => i === 0 || JSON.stringify(v) !== JSON.stringify(values[i - 1]));
}

/** What a test reads of a tool part. */
interface ToolPartView {
  readonly state?: string;
  readonly output?: unknown;
  readonly preliminary?: boolean;
}

const partOf = (message: UIMessage, callId: string) =>
  message.parts.find((part) => 'toolCallId' in part && part.toolCallId === callId) as
    ToolPartView | undefined;

/** Every value a web stream gives, in order. */
async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const values: T[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read())
    values.push(next.value);
  return values;
}

const questionPart = {
  id: 'r4-q1',
  toolCallId: 'r4',
  toolName: 'deploy',
  question,
};

/** The assistant message the whole conversation makes. */
const expected = {
  id: '',
  role: 'assistant',
  parts: [
    { type: 'step-start' },
    { type: 'text', text: 'Let me look.', state: 'done' },
    {
      type: 'tool-read_file',
      toolCallId: 'r1',
      state: 'output-available',
      input: { path: 'notes.txt' },
      output: 'buy milk',
      approval: { id: 'r1', approved: true },
    },
    {
      type: 'tool-delete_file',
      toolCallId: 'r2',
      state: 'output-denied',
      input: { path: '/etc/hosts' },
      approval: { id: 'r2', approved: false, reason: 'not that file' },
    },
    {
      type: 'tool-fetch_url',
      toolCallId: 'r3',
      state: 'output-error',
      input: { url: 'http://localhost:9' },
      errorText: 'connection refused',
      approval: { id: 'r3', approved: true },
    },
    {
      type: 'tool-deploy',
      toolCallId: 'r4',
      state: 'output-available',
      input: {},
      // What the model reads: the output, and the reviewer's note after it.
      output: 'deployed\n\n[Note from the person who reviewed this call: staging only]',
      approval: { id: 'r4', approved: true, reason: 'staging only' },
    },
    {
      type: 'data-agenttool-question',
      id: 'r4-q1',
      data: { ...questionPart, answer: { action: 'accept', content: { env: 'staging' } } },
    },
    {
      type: 'tool-read_file',
      toolCallId: 'r5',
      state: 'output-error',
      input: '{"path": ',
      errorText: 'invalid arguments: not valid JSON: Unexpected end of JSON input',
      approval: { id: 'r5', approved: true },
    },
    { type: 'step-start' },
    { type: 'text', text: 'Deployed to staging; I left /etc/hosts alone.', state: 'done' },
  ],
};

describe('toUIMessageStream: a loop as the AI SDK reads it', () => {
  it('rebuilds, through readUIMessageStream, the message with a step per turn and every tool part in its end state', async () => {
    const errors: Error[] = [];
    const messages = await snapshots(toUIMessageStream(from(conversation())), errors);
    expect(errors).to.deep.equal([]);
    expect(messages.at(-1)).to.deep.equal(expected);
  });

  it('shows progress as preliminary output before the final, and each approval asked before its answer', async () => {
    const messages = await snapshots(toUIMessageStream(from(conversation())));
    const r1 = messages.map((m) => partOf(m, 'r1')).filter((p) => p?.state === 'output-available');
    expect(changes(r1.map((p) => [p!.output, p!.preliminary]))).to.deep.equal([
      ['reading', true],
      ['half way', true],
      ['buy milk', undefined],
    ]);
    const r2 = messages.map((m) => partOf(m, 'r2')?.state).filter((s) => s !== undefined);
    expect(changes(r2)).to.deep.equal([
      'input-streaming',
      'input-available',
      'approval-requested',
      'approval-responded',
      'output-denied',
    ]);
  });

  it('sends a question as a data part the answer then replaces in place', async () => {
    const messages = await snapshots(toUIMessageStream(from(conversation())));
    const parts = messages.map((m) => m.parts.filter((p) => p.type === 'data-agenttool-question'));
    const seen = changes(parts.filter((p) => p.length > 0));
    expect(seen).to.deep.equal([
      [{ type: 'data-agenttool-question', id: 'r4-q1', data: questionPart }],
      [{ type: 'data-agenttool-question', id: 'r4-q1', data: expected.parts[6]!.data }],
    ]);
  });

  it('ends a loop that errors with an error chunk, no finish, and completes', async () => {
    const failing$ = concat(
      from(conversation().slice(0, 3)),
      throwError(() => new Error('model unreachable')),
    );
    const chunks = await lastValueFrom(toUIMessageStream(failing$).pipe(toArray()));
    expect(chunks.slice(-2)).to.deep.equal([
      { type: 'text-delta', id: 'msg_1', delta: 'look.' },
      { type: 'error', errorText: 'model unreachable' },
    ]);
    const errors: Error[] = [];
    await snapshots(toUIMessageStream(failing$), errors);
    expect(errors.map((e) => e.message)).to.deep.equal(['model unreachable']);
  });

  it('sends dynamic tool parts and the output the application chooses when asked to', async () => {
    const messages = await snapshots(
      toUIMessageStream(from(conversation()), {
        messageId: 'm1',
        dynamic: true,
        toolOutput: (result, call, final) => ({ text: result.output, call: call.call_id, final }),
      }),
    );
    const last = messages.at(-1)!;
    expect(last.id).to.equal('m1');
    expect(partOf(last, 'r1')).to.deep.include({
      type: 'dynamic-tool',
      toolName: 'read_file',
      state: 'output-available',
      output: { text: 'buy milk', call: 'r1', final: true },
    });
    expect(partOf(last, 'r2')).to.deep.include({ type: 'dynamic-tool', state: 'output-denied' });
  });

  it('subscribes the loop once per subscription, and unsubscribes it with the stream', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const loop = cold<LoopEvent>('a----b----', {
        a: { type: 'turn-start', turn: 1, input: [] },
        b: { type: 'text-delta', turn: 1, id: 'm', delta: 'hi' },
      });
      const unsub = '               ^-------!  ';
      expectObservable(toUIMessageStream(loop), unsub).toBe('(st)-(uv)', {
        s: { type: 'start' },
        t: { type: 'start-step' },
        u: { type: 'text-start', id: 'm' },
        v: { type: 'text-delta', id: 'm', delta: 'hi' },
      });
      expectSubscriptions(loop.subscriptions).toBe('^-------!  ');
    });
  });

  it('starts text again after a call the model writes between two pieces of one text', async () => {
    const events: LoopEvent[] = [
      { type: 'turn-start', turn: 1, input: [] },
      { type: 'text-delta', turn: 1, id: 't', delta: 'a' },
      { type: 'call', turn: 1, call: deploy },
      { type: 'text-delta', turn: 1, id: 't', delta: '' },
      { type: 'text-delta', turn: 1, id: 't', delta: 'b' },
    ];
    const chunks = await lastValueFrom(toUIMessageStream(from(events)).pipe(toArray()));
    expect(chunks.map((c) => c.type)).to.deep.equal([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-available',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
  });
});

describe('uiMessageStreamResponse and pipeUIMessageStream: the stream over HTTP', () => {
  const serve = loopServer((loop$, res) => pipeUIMessageStream(loop$, res), '/chat');

  it('answers with the AI SDK headers and a body its SSE parser reads chunk by chunk, then [DONE]', async () => {
    const response = uiMessageStreamResponse(from(conversation()));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    expect(headers).to.deep.equal(AI_SDK_HEADERS);
    const [forParser, forText] = response.body!.tee();
    const parsed = parseJsonEventStream({ stream: forParser, schema: uiMessageChunkSchema });
    const chunks = (await readAll(parsed)).map((result) => {
      if (!result.success) throw result.error;
      return result.value;
    });
    const direct = await lastValueFrom(toUIMessageStream(from(conversation())).pipe(toArray()));
    expect(chunks).to.deep.equal(JSON.parse(JSON.stringify(direct)));
    const text = await new Response(forText).text();
    expect(text.startsWith('data: {"type":"start"}\n\n')).to.equal(true);
    expect(
      text.endsWith('data: {"type":"finish","finishReason":"stop"}\n\ndata: [DONE]\n\n'),
    ).to.equal(true);
  });

  it('unsubscribes the loop when the body is cancelled', async () => {
    const { endedBefore, endedAfter } = await cancelledBody(uiMessageStreamResponse);
    expect(endedBefore).to.equal(false);
    expect(endedAfter).to.equal(true);
  });

  it('fails on the wire only the call whose input or output is not JSON; the stream goes on', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const depth = 200_000; // parses, but is too deep to write back as JSON
    const deep = functionCall('r6', 'read_file', '['.repeat(depth) + ']'.repeat(depth));
    const events = conversation();
    events.splice(
      events.findIndex((e) => e.type === 'turn-end'),
      0,
      { type: 'call', turn: 1, call: deep },
    );
    const response = uiMessageStreamResponse(from(events), {
      toolOutput: (result, call, final) =>
        call.call_id === 'r1' && final ? cyclic : result.output,
    });
    const parsed = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema });
    const chunks = (await readAll(parsed)).map((result) => {
      if (!result.success) throw result.error;
      return result.value as UIMessageChunk;
    });
    const last = (await snapshots(from(chunks))).at(-1)!;
    const r1 = partOf(last, 'r1') as ToolPartView & { errorText: string };
    expect(r1.state).to.equal('output-error');
    expect(r1.errorText).to.match(
      /^a tool-output-available chunk is not JSON \(Converting circular structure to JSON .*\); it was left out$/,
    );
    const r6 = partOf(last, 'r6') as ToolPartView & { errorText: string };
    expect(r6.state).to.equal('output-error');
    expect(r6.errorText).to.match(
      /^a tool-input-available chunk is not JSON \(.+\); it was left out$/,
    );
    expect(last.parts.at(-1)).to.deep.equal(expected.parts.at(-1));
  });

  it('serves useChat’s transport from a node:http server, and reads back the approval its client gives', async () => {
    const loop$ = new Subject<LoopEvent>();
    const url = await serve(() => loop$);
    const chat = new TestChat(url);
    const sent = chat.sendMessage({ text: 'Tidy up.' });
    const events = conversation();
    const asked = events.findIndex((e) => e.type === 'approval' && e.callId === 'r2' && !e.answer);
    await until(() => loop$.observed, 'the server subscribing the loop');
    for (const event of events.slice(0, asked + 1)) loop$.next(event);
    await until(
      () => partOf(chat.messages.at(-1)!, 'r2')?.state === 'approval-requested',
      'the approval request reaching the client',
    );

    // The person refuses in the UI; the application posts the messages and reads the answers.
    await chat.addToolApprovalResponse({ id: 'r2', approved: false, reason: 'not that file' });
    const answers = approvalResponses(JSON.parse(JSON.stringify(chat.messages)));
    expect([...answers]).to.deep.equal([['r2', { approved: false, reason: 'not that file' }]]);

    for (const event of events.slice(asked + 1)) loop$.next(event);
    loop$.complete();
    await sent;
    expect(chat.status).to.equal('ready');
    expect(JSON.parse(JSON.stringify(chat.messages.at(-1)))).to.deep.include({
      parts: expected.parts,
    });
  });

  it('unsubscribes the loop when the client disconnects, which cancels its calls', async () => {
    const { endedBefore, observedAfter } = await disconnected(serve, '{}');
    expect(endedBefore).to.equal(false);
    expect(observedAfter).to.equal(false);
  });
});

describe('approvalResponses: the answers in the messages a client sends back', () => {
  const part = (fields: Record<string, unknown>) => ({
    type: 'tool-deploy',
    toolCallId: 'r4',
    state: 'approval-responded',
    input: {},
    approval: { id: 'r4', approved: true },
    ...fields,
  });

  it('reads approved, refused and refused-with-a-reason parts, the last answer of a call winning', () => {
    const messages = [
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
      {
        id: 'a',
        role: 'assistant',
        parts: [
          part({ toolCallId: 'r1', approval: { id: 'r1', approved: false } }),
          part({
            type: 'dynamic-tool',
            toolName: 'x',
            toolCallId: 'r2',
            approval: { id: 'r2', approved: false, reason: 'no' },
          }),
          part({ toolCallId: 'r3' }),
          part({ toolCallId: 'r1', approval: { id: 'r1', approved: true } }),
          part({ toolCallId: 'r9', state: 'approval-requested', approval: { id: 'r9' } }),
          part({ toolCallId: 'r8', state: 'output-denied' }),
        ],
      },
    ];
    expect([...approvalResponses(messages)]).to.deep.equal([
      ['r1', true],
      ['r2', { approved: false, reason: 'no' }],
      ['r3', true],
    ]);
  });

  it('passes over what is not an answered tool part, hostile keys included', () => {
    const hostile = JSON.parse(
      '{"parts":[{"type":"tool-x","toolCallId":"__proto__","state":"approval-responded","approval":{"approved":true}}]}',
    ) as unknown;
    const messages = [
      null,
      7,
      { parts: 'no' },
      { parts: [null, [], { type: 5 }, part({ type: 'text' }), part({ toolCallId: 1 })] },
      { parts: [part({ approval: null }), part({ approval: { approved: 'yes' } })] },
      { parts: [part({ approval: { approved: false, reason: 3 } })] },
      hostile,
    ];
    const answers = approvalResponses(messages);
    expect([...answers]).to.deep.equal([['__proto__', true]]);
    expect(({} as Record<string, unknown>).approved).to.equal(undefined);
  });

  it('refuses messages that are not an array with a TypeError', () => {
    expect(() => approvalResponses({ messages: [] })).to.throw(
      TypeError,
      'approvalResponses: messages is not an array of UI messages',
    );
  });
});

/** The AI SDK's chat (what `useChat` wraps) over its default HTTP transport, state in an array. */
class TestChat extends AbstractChat<UIMessage> {
  constructor(api: string) {
    super({ transport: new DefaultChatTransport({ api }), state: new ArrayState() });
  }
}

class ArrayState implements ChatState<UIMessage> {
  status: ChatState<UIMessage>['status'] = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}
