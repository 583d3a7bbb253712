import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import {
  CallContext,
  executeBatch,
  tool,
  type ElicitRequest,
  type ElicitResult,
  type ExecutionEvent,
  type ToolCall,
} from '../index.js';

const question: ElicitRequest = {
  message: 'Deploy to which environment?',
  schema: {
    type: 'object',
    properties: { env: { type: 'string', enum: ['staging', 'prod'] } },
    required: ['env'],
  },
};
const accepted: ElicitResult = { action: 'accept', content: { env: 'staging' } };
const call: ToolCall = { id: 'c1', args: '' };

describe('context.elicit', () => {
  it('resolves to decline at once without an elicitor', async () => {
    expect(await new CallContext(call).elicit(question)).to.deep.equal({ action: 'decline' });
  });

  it("resolves with a Promise elicitor's answer, which is given the request and the call", async () => {
    const seen: [ElicitRequest, string][] = [];
    const context = new CallContext(call, {
      elicitor: (request, asked) => {
        seen.push([request, asked.id]);
        return Promise.resolve(accepted);
      },
    });
    expect(await context.elicit(question)).to.deep.equal(accepted);
    expect(seen).to.deep.equal([[question, 'c1']]);
  });

  it('answers cancel when a Promise elicitor rejects', async () => {
    const context = new CallContext(call, { elicitor: () => Promise.reject(new Error('gone')) });
    expect(await context.elicit(question)).to.deep.equal({ action: 'cancel' });
  });

  it('answers cancel when the call is cancelled while a Promise answer is pending, which is then ignored', async () => {
    let answer!: (result: ElicitResult) => void;
    const context = new CallContext(call, {
      elicitor: () => new Promise<ElicitResult>((resolve) => (answer = resolve)),
    });
    const pending = context.elicit(question);
    context.cancel();
    answer(accepted);
    expect(await pending).to.deep.equal({ action: 'cancel' });
  });

  it('answers cancel once the call has ended', async () => {
    const context = new CallContext(call, { elicitor: () => accepted });
    context.finish();
    expect(await context.elicit(question)).to.deep.equal({ action: 'cancel' });
  });

  it('rejects with a TypeError a request that is not a message and a flat object schema', async () => {
    const context = new CallContext(call, { elicitor: () => accepted });
    const bad = [
      undefined,
      { message: 1, schema: question.schema },
      { message: 'm', schema: { type: 'string' } },
      { message: 'm', schema: { type: 'object' } },
    ];
    for (const request of bad) {
      const outcome = await context.elicit(request as unknown as ElicitRequest).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(outcome).to.be.instanceOf(TypeError);
    }
  });

  it("is lent by a parent context, which reports the question on its own sink, the child's not", async () => {
    const parentSeen: (ElicitResult | undefined)[] = [];
    const childSeen: unknown[] = [];
    const parent = new CallContext(call, {
      elicitor: () => accepted,
      sink: { progress: () => undefined, question: (_r, answer) => parentSeen.push(answer) },
    });
    const child = new CallContext(call, {
      parent,
      sink: { progress: () => undefined, question: (...args) => childSeen.push(args) },
    });
    expect(await child.elicit(question)).to.deep.equal(accepted);
    expect(parentSeen).to.deep.equal([undefined, accepted]);
    expect(childSeen).to.deep.equal([]);
  });

  it('reaches the executor from a tool() function, with the question in the batch events', async () => {
    const deploy = tool({
      name: 'deploy',
      description: 'Deploys after asking where',
      parameters: z.object({}),
      execute: async (_args, context) => {
        const answer = await context.elicit(question);
        return answer.action === 'accept' ? `deployed to ${String(answer.content.env)}` : 'skipped';
      },
    });
    const events: ExecutionEvent[] = await lastValueFrom(
      executeBatch([{ tool: deploy, call: { id: 'd', args: '{}' } }], {
        elicitor: () => Promise.resolve(accepted),
      }).pipe(toArray()),
    );
    expect(events).to.deep.equal([
      { index: 0, callId: 'd', final: false, question },
      { index: 0, callId: 'd', final: false, question, answer: accepted },
      { index: 0, callId: 'd', final: true, result: { output: 'deployed to staging' } },
    ]);
  });
});
