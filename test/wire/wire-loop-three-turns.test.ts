/**
 * A scripted model's three turns through `agentLoop`, read by the fronts' own readers: a call a
 * person approves, a tool's question a front answers by its id on the wire (`WireQuestions`), and
 * a turn the loop's signal cancels while its call runs. The front acts on what it reads from the
 * UI message stream (`ai`'s `readUIMessageStream`); the same loop events then go through
 * `toAgUiEvents` into `@ag-ui/client`'s verifier and reducer.
 */
import { verifyEvents } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { readUIMessageStream, type UIMessage, type UIMessageChunk as AiChunk } from 'ai';
import { expect } from 'chai';
import { concat, from, lastValueFrom, NEVER, type Observable, Subject, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { tool, type OutputItem } from '../../index.js';
import type { Approval } from '../../operators/job.js';
import { agentLoop } from '../../operators/agent-loop.js';
import type { LoopEvent } from '../../operators/loop-events.js';
import type { ResponsesStreamEvent } from '../../operators/model-stream/responses.js';
import {
  approvalResponses,
  toAgUiEvents,
  toUIMessageStream,
  WireQuestions,
  type UIMessageChunk,
} from '../../adapters/wire/index.js';
import { readable, ReplayAgent, toolCall, toolMessage } from '../support/front-readers.js';

type Ev = ResponsesStreamEvent;
const text = (id: string, delta: string): Ev => ({
  type: 'response.output_text.delta',
  item_id: id,
  delta,
});
const call = (id: string, name: string, args: string): Ev => ({
  type: 'response.output_item.done',
  item: { type: 'function_call', call_id: id, name, arguments: args } as OutputItem,
});

const envQuestion = {
  message: 'Which environment?',
  schema: {
    type: 'object' as const,
    properties: { env: { type: 'string' as const, enum: ['staging', 'production'] } },
    required: ['env'],
  },
};

const tools = [
  tool({
    name: 'deploy',
    description: 'Deploys the service; a person approves it first',
    parameters: z.object({ service: z.string() }),
    execute: ({ service }) => `deployed ${service}`,
  }),
  tool({
    name: 'pick_env',
    description: 'Asks the person which environment',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.elicit(envQuestion);
      return answer.action === 'accept' ? `env: ${String(answer.content.env)}` : 'no env';
    },
  }),
  tool({
    name: 'watch',
    description: 'Watches the rollout until cancelled',
    parameters: z.object({}),
    execute: (_args, context) =>
      new Promise<string>((_resolve, reject) => {
        context.progress({ progress: 1, total: 3, message: 'rolling out' });
        context.signal.addEventListener('abort', () => reject(new Error('stopped watching')));
      }),
  }),
];

/** The model's three turns; the third never ends on its own. */
const turns: Observable<Ev>[] = [
  from([text('m1', 'Deploying '), text('m1', 'api.'), call('c1', 'deploy', '{"service":"api"}')]),
  from([call('c2', 'pick_env', '{}')]),
  concat(from([text('m3', 'Watching.'), call('c3', 'watch', '{}')]), NEVER),
];

interface Part {
  type: string;
  toolCallId?: string;
  state?: string;
  id?: string;
  data?: { answer?: unknown };
  approval?: { id: string; approved?: boolean };
  output?: unknown;
  preliminary?: boolean;
}

/**
 * Runs the conversation with a front that reads the UI message stream and acts on what it shows:
 * approves the approval asked, answers the question by its part's id, and aborts the loop once
 * the third turn's call shows progress.
 */
async function converse() {
  const questions = new WireQuestions();
  const approvals = new Map<string, Subject<Approval>>();
  const abort = new AbortController();
  const recorded: LoopEvent[] = [];
  let turn = 0;
  const loop$ = agentLoop({
    model: () => turns[turn++] ?? from<Ev[]>([]),
    tools,
    input: [{ type: 'message', role: 'user', content: 'Deploy api and watch it.' }],
    approve: (job) => {
      if (job.tool.name !== 'deploy') return true;
      const answer = new Subject<Approval>();
      approvals.set(job.call.id, answer);
      return answer;
    },
    elicitor: questions.elicitor,
    signal: abort.signal,
  }).pipe(tap((event) => recorded.push(event)));

  const chunks: UIMessageChunk[] = [];
  const chunks$ = toUIMessageStream(loop$, { messageId: 'a1' }).pipe(tap((c) => chunks.push(c)));
  const stream = readable(chunks$) as ReadableStream<AiChunk>;
  let last: UIMessage | undefined;
  const acted = new Set<string>();
  for await (const message of readUIMessageStream({ stream })) {
    last = message;
    for (const part of message.parts as Part[]) {
      const key = `${part.type}:${part.toolCallId ?? part.id}:${part.state}`;
      if (acted.has(key)) continue;
      if (part.state === 'approval-requested') {
        acted.add(key);
        // What addToolApprovalResponse leaves in the message, read back as the server reads it.
        const answered = {
          ...part,
          state: 'approval-responded',
          approval: { id: part.approval!.id, approved: true },
        };
        const [[callId, approval]] = [...approvalResponses([{ parts: [answered] }])];
        // The server takes the answers of the calls still waiting: pick_env's approval was
        // asked and given at once (its tool needs none), and the front may read it in between.
        approvals.get(callId!)?.next(approval!);
      }
      if (part.type === 'data-agenttool-question' && part.data?.answer === undefined) {
        acted.add(key);
        expect(
          questions.answer(part.id!, { action: 'accept', content: { env: 'staging' } }),
        ).to.equal(true);
      }
      if (part.type === 'tool-watch' && part.preliminary === true) {
        acted.add(key);
        abort.abort();
      }
    }
  }
  return { message: JSON.parse(JSON.stringify(last)) as UIMessage, recorded, questions, chunks };
}

const approved = (id: string) => ({ approval: { id, approved: true } });

/** The assistant message the front rebuilds: one step per turn. */
const expectedMessage = {
  id: 'a1',
  role: 'assistant',
  parts: [
    { type: 'step-start' },
    { type: 'text', text: 'Deploying api.', state: 'done' },
    {
      type: 'tool-deploy',
      toolCallId: 'c1',
      state: 'output-available',
      input: { service: 'api' },
      output: 'deployed api',
      ...approved('c1'),
    },
    { type: 'step-start' },
    {
      type: 'tool-pick_env',
      toolCallId: 'c2',
      state: 'output-available',
      input: {},
      output: 'env: staging',
      // Asked and given at once: the loop's approve lets every tool but deploy run.
      ...approved('c2'),
    },
    {
      type: 'data-agenttool-question',
      id: 'c2-q1',
      data: {
        id: 'c2-q1',
        toolCallId: 'c2',
        toolName: 'pick_env',
        question: envQuestion,
        answer: { action: 'accept', content: { env: 'staging' } },
      },
    },
    { type: 'step-start' },
    { type: 'text', text: 'Watching.', state: 'done' },
    {
      type: 'tool-watch',
      toolCallId: 'c3',
      state: 'output-error',
      input: {},
      errorText: 'call cancelled',
      ...approved('c3'),
    },
  ],
};

/** The thread an AG-UI client keeps: what the model saw, and the last progress of the call cut short. */
const expectedThread = [
  {
    id: 'm1',
    role: 'assistant',
    content: 'Deploying api.',
    toolCalls: [toolCall('c1', 'deploy', '{"service":"api"}')],
  },
  toolMessage('c1', 'deployed api'),
  // A turn without text: its calls belong to a message named for the run and the turn.
  { id: 'r1-turn-2', role: 'assistant', toolCalls: [toolCall('c2', 'pick_env', '{}')] },
  toolMessage('c2', 'env: staging'),
  { id: 'm3', role: 'assistant', content: 'Watching.', toolCalls: [toolCall('c3', 'watch', '{}')] },
  toolMessage('c3', 'Error: call cancelled'),
  {
    id: 'c3-progress',
    role: 'activity',
    activityType: 'agenttool.progress',
    content: { toolCallId: 'c3', toolName: 'watch', text: 'rolling out', progress: 1, total: 3 },
  },
];

describe('three turns of a scripted model, read by the fronts: approval, question, cancel', () => {
  let result: Awaited<ReturnType<typeof converse>>;
  before(async () => {
    result = await converse();
  });

  it('rebuilds the assistant message with readUIMessageStream: approved, answered, interrupted', () => {
    expect(result.message).to.deep.equal(expectedMessage);
    // The loop's signal ended it: the AI SDK's reason for a stream cut short.
    expect(result.chunks.at(-1)).to.deep.equal({ type: 'finish', finishReason: 'interrupted' });
    // The answer reached the tool, and nothing waits any more.
    expect(result.questions.pending).to.deep.equal([]);
    expect(result.questions.answer('c2-q1', { action: 'decline' })).to.equal(false);
  });

  it('leaves through @ag-ui/client the thread the model saw, after its verifier', async () => {
    const events = await lastValueFrom(
      toAgUiEvents(from(result.recorded), { threadId: 't1', runId: 'r1' }).pipe(toArray()),
    );
    const checked = verifyEvents()(
      from(events as unknown as BaseEvent[]) as never,
    ) as unknown as Observable<BaseEvent>;
    expect(await lastValueFrom(from(checked).pipe(toArray()))).to.have.length(events.length);
    const agent = new ReplayAgent(from(events), 't1');
    await agent.runAgent({ runId: 'r1' });
    expect(JSON.parse(JSON.stringify(agent.messages))).to.deep.equal(expectedThread);
    const custom = events.flatMap((e) =>
      e.type === 'CUSTOM' ? [[e.name, JSON.parse(JSON.stringify(e.value)) as unknown]] : [],
    );
    const approval = (id: string, name: string, args: string, answer?: unknown) => [
      'agenttool.approval',
      { toolCallId: id, toolName: name, arguments: args, ...(answer !== undefined && { answer }) },
    ];
    const asked = { id: 'c2-q1', toolCallId: 'c2', toolName: 'pick_env', question: envQuestion };
    const yes = { approved: true };
    expect(custom).to.deep.equal([
      approval('c1', 'deploy', '{"service":"api"}'),
      approval('c1', 'deploy', '{"service":"api"}', yes),
      approval('c2', 'pick_env', '{}'),
      approval('c2', 'pick_env', '{}', yes),
      // The question under the id the front answered it by, then with the answer.
      ['agenttool.question', asked],
      [
        'agenttool.question',
        { ...asked, answer: { action: 'accept', content: { env: 'staging' } } },
      ],
      approval('c3', 'watch', '{}'),
      approval('c3', 'watch', '{}', yes),
    ]);
    expect(events.at(-1)).to.deep.equal({
      type: 'RUN_FINISHED',
      threadId: 't1',
      runId: 'r1',
      outcome: { type: 'success' },
      result: { reason: 'cancelled', turns: 3 },
    });
  });
});
