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
} from '../../index.js';

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

describe('context.elicit: the questions one call may ask (maxQuestions)', () => {
  /** A tool() tool that asks `count` questions at once and answers with how they went. */
  const asker = (count: number) =>
    tool({
      name: 'asker',
      description: 'Asks many questions.',
      parameters: z.object({}),
      execute: async (_args, context) => {
        const settled = await Promise.allSettled(
          Array.from({ length: count }, () => context.elicit(question)),
        );
        const refused = settled.filter((s) => s.status === 'rejected');
        return `${count - refused.length} answered, ${refused.length} refused`;
      },
    });

  async function run(count: number, maxQuestions?: number) {
    let asked = 0;
    const options = { elicitor: () => (asked++, accepted), maxQuestions };
    const events = await lastValueFrom(
      executeBatch([{ tool: asker(count), call: { id: 'c1', args: '{}' } }], options).pipe(
        toArray(),
      ),
    );
    return { output: events.at(-1)?.result?.output, asked };
  }

  it("holds a tool()'s questions to the batch's cap, not to the default of its own context", async () => {
    expect(await run(20, 30)).to.deep.equal({ output: '20 answered, 0 refused', asked: 20 });
    expect(await run(20)).to.deep.equal({ output: '16 answered, 4 refused', asked: 16 });
    expect(await run(5, 2)).to.deep.equal({ output: '2 answered, 3 refused', asked: 2 });
  });

  it('rejects past the cap of a CallContext with a one-line RangeError naming the call', async () => {
    const context = new CallContext(call, { elicitor: () => accepted, maxQuestions: 1 });
    expect(await context.elicit(question)).to.deep.equal(accepted);
    const refused = await context.elicit(question).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(RangeError);
    expect((refused as Error).message).to.equal(
      'elicit: call "c1" may ask at most 1 question (maxQuestions)',
    );
  });
});
