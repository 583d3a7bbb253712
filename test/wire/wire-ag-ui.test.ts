import { HttpAgent, verifyEvents } from '@ag-ui/client';
import type { BaseEvent, Message, RunAgentInput } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { expect } from 'chai';
import { concat, from, lastValueFrom, type Observable, throwError, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ValidationError } from '../../lib/errors.js';
import type { LoopEvent } from '../../operators/loop-events.js';
import {
  agUiResponse,
  pipeAgUiEvents,
  toAgUiEvents,
  type AgUiEvent,
} from '../../adapters/wire/index.js';
import { conversation, question } from '../support/loop-conversation.js';
import { ReplayAgent, toolCall, toolMessage } from '../support/front-readers.js';
import { cancelledBody, disconnected, loopServer } from '../support/loop-http.js';

const run = { threadId: 'thread-1', runId: 'run-1' };

const events = () => lastValueFrom(toAgUiEvents(from(conversation()), run).pipe(toArray()));

/** The events through `@ag-ui/client`'s own verifier: its error if it refuses one. */
function verified(list: readonly AgUiEvent[]): Promise<BaseEvent[]> {
  // @ag-ui/client has its own copy of rxjs: its Observable and ours meet through `from`.
  const source = from(list as unknown as BaseEvent[]) as never;
  const checked = verifyEvents()(source) as unknown as Observable<BaseEvent>;
  return lastValueFrom(from(checked).pipe(toArray()));
}

/** The thread the whole conversation leaves in a client. */
const expectedMessages = [
  {
    id: 'msg_1',
    role: 'assistant',
    content: 'Let me look.',
    toolCalls: [
      toolCall('r1', 'read_file', '{"path":"notes.txt"}'),
      toolCall('r2', 'delete_file', '{"path":"/etc/hosts"}'),
      toolCall('r3', 'fetch_url', '{"url":"http://localhost:9"}'),
      toolCall('r4', 'deploy', '{}'),
      toolCall('r5', 'read_file', '{"path": '),
    ],
  },
  toolMessage('r1', 'buy milk'),
  toolMessage('r2', 'Error: not that file'),
  toolMessage('r3', 'Error: connection refused'),
  toolMessage('r4', 'deployed\n\n[Note from the person who reviewed this call: staging only]'),
  toolMessage('r5', 'Error: invalid arguments: not valid JSON: Unexpected end of JSON input'),
  {
    id: 'r1-progress',
    role: 'activity',
    activityType: 'agenttool.progress',
    content: { toolCallId: 'r1', toolName: 'read_file', text: 'half way' },
  },
  { id: 'msg_2', role: 'assistant', content: 'Deployed to staging; I left /etc/hosts alone.' },
];

describe('toAgUiEvents: a loop as an AG-UI 1.0 run', () => {
  it('writes events @ag-ui/core’s schema accepts and @ag-ui/client’s verifier lets through', async () => {
    const list = await events();
    for (const event of list)
      expect(EventSchema.safeParse(event).success, event.type).to.equal(true);
    expect(await verified(list)).to.have.length(list.length);
    // The verifier does refuse a run that breaks its rules: here, steps left open.
    const unclosed = list.filter((e) => e.type !== 'STEP_FINISHED');
    let refusal = '';
    await verified(unclosed).catch((e: Error) => (refusal = e.message));
    expect(refusal).to.equal(
      "Cannot send 'RUN_FINISHED' while steps are still active: turn 1, turn 2",
    );
  });

  it('leaves, through the client’s own reducer, the thread the model saw: text, calls, results', async () => {
    const agent = new ReplayAgent(toAgUiEvents(from(conversation()), run), run.threadId);
    const { newMessages } = await agent.runAgent({ runId: run.runId });
    expect(JSON.parse(JSON.stringify(agent.messages))).to.deep.equal(expectedMessages);
    expect(newMessages).to.have.length(expectedMessages.length);
  });

  it('shows progress as an activity the next update replaces, with its numbers', async () => {
    const list = await events();
    const progress = list.filter((e) => e.type === 'ACTIVITY_SNAPSHOT');
    expect(progress.map((e) => [e.messageId, e.content])).to.deep.equal([
      [
        'r1-progress',
        { toolCallId: 'r1', toolName: 'read_file', text: 'reading', progress: 1, total: 2 },
      ],
      ['r1-progress', { toolCallId: 'r1', toolName: 'read_file', text: 'half way' }],
    ]);
  });

  it('sends approvals and questions as custom events, asked then answered, within the run', async () => {
    const list = await events();
    const custom = list.filter((e) => e.type === 'CUSTOM');
    const r2 = custom.filter((e) => (e.value as { toolCallId: string }).toolCallId === 'r2');
    expect(r2).to.deep.equal([
      {
        type: 'CUSTOM',
        name: 'agenttool.approval',
        value: { toolCallId: 'r2', toolName: 'delete_file', arguments: '{"path":"/etc/hosts"}' },
      },
      {
        type: 'CUSTOM',
        name: 'agenttool.approval',
        value: {
          toolCallId: 'r2',
          toolName: 'delete_file',
          arguments: '{"path":"/etc/hosts"}',
          answer: { approved: false, reason: 'not that file' },
        },
      },
    ]);
    const questions = custom.filter((e) => e.name === 'agenttool.question').map((e) => e.value);
    const asked = { id: 'r4-q1', toolCallId: 'r4', toolName: 'deploy', question };
    expect(questions).to.deep.equal([
      asked,
      { ...asked, answer: { action: 'accept', content: { env: 'staging' } } },
    ]);
    expect(list.at(-1)).to.deep.equal({
      type: 'RUN_FINISHED',
      ...run,
      outcome: { type: 'success' },
      result: { reason: 'done', turns: 2 },
    });
  });

  it('ends a loop that errors with RUN_ERROR, its message and code, which the verifier accepts', async () => {
    const failing$ = concat(
      from(conversation().slice(0, 5)),
      throwError(() => new ValidationError('', 'bad turn')),
    );
    const list = await lastValueFrom(toAgUiEvents(failing$, run).pipe(toArray()));
    expect(list.at(-1)).to.deep.equal({
      type: 'RUN_ERROR',
      message: 'invalid arguments: bad turn',
      code: 'invalid_arguments',
    });
    expect(await verified(list)).to.have.length(list.length);
  });

  it('subscribes the loop once per subscription, and unsubscribes it with the run', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const loop = cold<LoopEvent>('a---b----', {
        a: { type: 'turn-start', turn: 1, input: [] },
        b: { type: 'call-start', turn: 1, callId: 'r1', name: 'read_file' },
      });
      const unsub = '               ^------!  ';
      expectObservable(toAgUiEvents(loop, run), unsub).toBe('(rs)c', {
        r: { type: 'RUN_STARTED', ...run, protocolVersion: '1.0' },
        s: { type: 'STEP_STARTED', stepName: 'turn 1' },
        c: {
          type: 'TOOL_CALL_START',
          toolCallId: 'r1',
          toolCallName: 'read_file',
          parentMessageId: 'run-1-turn-1',
        },
      });
      expectSubscriptions(loop.subscriptions).toBe('^------!  ');
    });
  });

  it('closes what a loop that completes early left open, so the run still verifies', async () => {
    const early = conversation().slice(0, 5); // a text and a call being written, mid-turn
    const list = await lastValueFrom(toAgUiEvents(from(early), run).pipe(toArray()));
    expect(list.slice(-3).map((e) => e.type)).to.deep.equal([
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    expect(await verified(list)).to.have.length(list.length);
  });
});

describe('agUiResponse and pipeAgUiEvents: the run over HTTP', () => {
  const serve = loopServer((loop$, res, body) => {
    const input = JSON.parse(body) as RunAgentInput;
    pipeAgUiEvents(loop$, res, { threadId: input.threadId, runId: input.runId });
  }, '/agent');

  it('writes each event as @ag-ui/encoder’s EventEncoder frames it, with no closing frame', async () => {
    const response = agUiResponse(from(conversation()), run);
    expect(response.headers.get('content-type')).to.equal(new EventEncoder().getContentType());
    const encoder = new EventEncoder();
    const frames = (await events()).map((e) => encoder.encodeSSE(e as unknown as BaseEvent));
    expect(await response.text()).to.equal(frames.join(''));
  });

  it('serves HttpAgent from a node:http server: it reads, verifies and applies the whole run', async () => {
    const url = await serve(() => from(conversation()));
    const agent = new HttpAgent({ url, threadId: run.threadId });
    const user: Message = { id: 'u1', role: 'user', content: 'Tidy up and deploy.' };
    agent.setMessages([user]);
    const { newMessages } = await agent.runAgent({ runId: run.runId });
    expect(JSON.parse(JSON.stringify(agent.messages))).to.deep.equal([user, ...expectedMessages]);
    expect(newMessages).to.have.length(expectedMessages.length);
  });

  it('unsubscribes the loop when the client disconnects, which cancels its calls', async () => {
    const body = JSON.stringify({ ...run, messages: [], tools: [], context: [] });
    const { endedBefore, observedAfter } = await disconnected(serve, body);
    expect(endedBefore).to.equal(false);
    expect(observedAfter).to.equal(false);
  });

  it('unsubscribes the loop when the Response body is cancelled', async () => {
    const { endedAfter } = await cancelledBody((loop$) => agUiResponse(loop$, run));
    expect(endedAfter).to.equal(true);
  });
});
