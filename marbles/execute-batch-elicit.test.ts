import { expect } from 'chai';
import { ignoreElements, merge, Observable, tap, timer } from 'rxjs';
import type {
  ElicitRequest,
  ElicitResult,
  Elicitor,
  ToolCall,
  ToolEvent,
} from '../lib/contract.js';
import { TimeoutError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import {
  errorEvent,
  finalEvent,
  progressEvent,
  questionEvent,
  stubTool,
} from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

const question: ElicitRequest = {
  message: 'Which branch?',
  schema: { type: 'object', properties: { branch: { type: 'string' } }, required: ['branch'] },
};
const accepted: ElicitResult = { action: 'accept', content: { branch: 'main' } };
const cancelled: ElicitResult = { action: 'cancel' };

/** A tool emitting `events` that asks `question` at frame `at`, keeping what elicit resolves to. */
function asking(events: Observable<ToolEvent>, at: number, answers: Promise<ElicitResult>[]) {
  return stubTool('ask', (_call, context) =>
    merge(
      events,
      timer(at).pipe(
        tap(() => answers.push(context.elicit(question))),
        ignoreElements(),
      ),
    ),
  );
}

describe('executeBatch: a tool asks a question (elicitor)', () => {
  it('shows the question on its call, asked then answered, between progress and the final', async () => {
    const answers: Promise<ElicitResult>[] = [];
    const asked: [ElicitRequest, ToolCall][] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const reply = cold('--a|', { a: accepted });
      const elicitor: Elicitor = (request, call) => {
        asked.push([request, call]);
        return reply;
      };
      const tool = asking(cold('-p---(f|)', toolEvents), 2, answers);
      expectObservable(executeBatch([job(tool, 'c1')], { elicitor })).toBe('-pq-a(f|)', {
        p: progressEvent(0, 'c1', 'half'),
        q: questionEvent(0, 'c1', question),
        a: questionEvent(0, 'c1', question, accepted),
        f: finalEvent(0, 'c1', 'done'),
      });
      expectSubscriptions(reply.subscriptions).toBe('--^-!');
    });
    expect(await answers[0]).to.deep.equal(accepted);
    expect(asked).to.deep.equal([[question, { id: 'c1', args: '', idempotencyKey: 'c1' }]]);
  });

  it('declines at once without an elicitor, and shows nothing', async () => {
    const answers: Promise<ElicitResult>[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const tool = asking(cold('-p---(f|)', toolEvents), 2, answers);
      expectObservable(executeBatch([job(tool, 'c1')])).toBe('-p---(f|)', {
        p: progressEvent(0, 'c1', 'half'),
        f: finalEvent(0, 'c1', 'done'),
      });
    });
    expect(answers).to.have.length(1);
    expect(await answers[0]).to.deep.equal({ action: 'decline' });
  });

  it('takes a plain answer in the frame it was asked', async () => {
    const answers: Promise<ElicitResult>[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const tool = asking(cold('------(f|)', toolEvents), 2, answers);
      expectObservable(executeBatch([job(tool, 'c1')], { elicitor: () => accepted })).toBe(
        '--(qa)(f|)',
        {
          q: questionEvent(0, 'c1', question),
          a: questionEvent(0, 'c1', question, accepted),
          f: finalEvent(0, 'c1', 'done'),
        },
      );
    });
    expect(await answers[0]).to.deep.equal(accepted);
  });

  it('cancels an open question when the batch is unsubscribed: cancel, the answer unsubscribed', async () => {
    const answers: Promise<ElicitResult>[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const reply = cold('-----a|', { a: accepted });
      const tool = asking(cold('-p------(f|)', toolEvents), 2, answers);
      expectObservable(executeBatch([job(tool, 'c1')], { elicitor: () => reply }), '----!').toBe(
        '-pq-',
        { p: progressEvent(0, 'c1', 'half'), q: questionEvent(0, 'c1', question) },
      );
      expectSubscriptions(reply.subscriptions).toBe('--^-!');
    });
    expect(await answers[0]).to.deep.equal(cancelled);
  });

  it('answers cancel, shown before the final, when the call ends while its question is open', async () => {
    const answers: Promise<ElicitResult>[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const reply = cold('-----a|', { a: accepted });
      const tool = asking(cold('----(f|)', toolEvents), 2, answers);
      expectObservable(executeBatch([job(tool, 'c1')], { elicitor: () => reply })).toBe(
        '--q-(cf|)',
        {
          q: questionEvent(0, 'c1', question),
          c: questionEvent(0, 'c1', question, cancelled),
          f: finalEvent(0, 'c1', 'done'),
        },
      );
      expectSubscriptions(reply.subscriptions).toBe('--^-!');
    });
    expect(await answers[0]).to.deep.equal(cancelled);
  });

  it('answers cancel before the TimeoutError when the call times out while asking', async () => {
    const answers: Promise<ElicitResult>[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const reply = cold('------a|', { a: accepted });
      const tool = asking(cold('--------(f|)', toolEvents), 1, answers);
      const options = { elicitor: () => reply, timeout: 4 };
      expectObservable(executeBatch([job(tool, 'c1')], options)).toBe('-q--(ct|)', {
        q: questionEvent(0, 'c1', question),
        c: questionEvent(0, 'c1', question, cancelled),
        t: errorEvent(0, 'c1', new TimeoutError(4)),
      });
      expectSubscriptions(reply.subscriptions).toBe('-^--!');
    });
    expect(await answers[0]).to.deep.equal(cancelled);
  });

  it('answers cancel when the elicitor throws, errors or completes empty; the call goes on', async () => {
    const failing: Elicitor[] = [
      () => {
        throw new Error('no terminal');
      },
      () => new Observable<ElicitResult>((s) => s.error(new Error('closed'))),
      () => new Observable<ElicitResult>((s) => s.complete()),
      () => ({ action: 'maybe' }) as unknown as ElicitResult,
    ];
    for (const elicitor of failing) {
      const answers: Promise<ElicitResult>[] = [];
      testScheduler().run(({ cold, expectObservable }) => {
        const tool = asking(cold('-p----(f|)', toolEvents), 2, answers);
        expectObservable(executeBatch([job(tool, 'c1')], { elicitor })).toBe('-p(qc)(f|)', {
          p: progressEvent(0, 'c1', 'half'),
          q: questionEvent(0, 'c1', question),
          c: questionEvent(0, 'c1', question, cancelled),
          f: finalEvent(0, 'c1', 'done'),
        });
      });
      expect(await answers[0]).to.deep.equal(cancelled);
    }
  });

  it('asks for each call on its own: one call waiting for an answer holds nobody else', async () => {
    const answers: Promise<ElicitResult>[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const reply = cold('----a|', { a: accepted });
      const a = asking(cold('------(f|)', toolEvents), 1, answers);
      const b = stubTool('b', cold('--(f|)', toolEvents));
      const events = executeBatch([job(a, 'a'), job(b, 'b')], { elicitor: () => reply });
      expectObservable(events).toBe('-qb--r(f|)', {
        q: questionEvent(0, 'a', question),
        b: finalEvent(1, 'b', 'done'),
        r: questionEvent(0, 'a', question, accepted),
        f: finalEvent(0, 'a', 'done'),
      });
    });
    expect(await answers[0]).to.deep.equal(accepted);
  });
});
