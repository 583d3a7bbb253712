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

describe('executeBatch: the questions one call may ask (maxQuestions)', () => {
  /** A tool that asks `count` questions at frame `at`, keeping what each elicit settles to. */
  function askingMany(events: Observable<ToolEvent>, at: number, count: number, got: unknown[]) {
    return stubTool('ask', (_call, context) =>
      merge(
        events,
        timer(at).pipe(
          tap(() => {
            for (let i = 0; i < count; i++)
              context.elicit(question).then(
                (answer) => got.push(answer.action),
                (err: unknown) => got.push((err as Error).message),
              );
          }),
          ignoreElements(),
        ),
      ),
    );
  }

  it('asks the first 16 of a flood and refuses the rest with a one-line error; the call goes on', async () => {
    const got: unknown[] = [];
    let asked = 0;
    testScheduler().run(({ cold, expectObservable }) => {
      const tool = askingMany(cold(`${'-'.repeat(40)}(f|)`, toolEvents), 1, 500, got);
      const elicitor: Elicitor = () => {
        asked++;
        return accepted;
      };
      // The 32 events of frame 1 take frames 1 to 34 of the diagram; the final comes at 40.
      const expected = `-(${'qa'.repeat(16)})-----(f|)`;
      expectObservable(executeBatch([job(tool, 'c1')], { elicitor })).toBe(expected, {
        q: questionEvent(0, 'c1', question),
        a: questionEvent(0, 'c1', question, accepted),
        f: finalEvent(0, 'c1', 'done'),
      });
    });
    await Promise.resolve();
    expect(asked).to.equal(16);
    expect(got.filter((g) => g === 'accept')).to.have.length(16);
    const refused = got.filter((g) => g !== 'accept');
    expect(refused).to.have.length(484);
    expect(new Set(refused)).to.deep.equal(
      new Set(['elicit: call "c1" may ask at most 16 questions (maxQuestions)']),
    );
  });

  it("counts the questions of the call's whole life, answered or open", async () => {
    const got: unknown[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const reply = cold('-a|', { a: accepted });
      const tool = stubTool('ask', (_call, context) =>
        merge(
          cold('------(f|)', toolEvents),
          timer(1).pipe(
            tap(() => void context.elicit(question).then((a) => got.push(a.action))),
            ignoreElements(),
          ),
          timer(3).pipe(
            tap(
              () =>
                void context.elicit(question).then(
                  (a) => got.push(a.action),
                  (err: unknown) => got.push((err as Error).message),
                ),
            ),
            ignoreElements(),
          ),
        ),
      );
      const options = { elicitor: () => reply, maxQuestions: 1 };
      expectObservable(executeBatch([job(tool, 'c1')], options)).toBe('-qa---(f|)', {
        q: questionEvent(0, 'c1', question),
        a: questionEvent(0, 'c1', question, accepted),
        f: finalEvent(0, 'c1', 'done'),
      });
    });
    await Promise.resolve();
    expect(got).to.deep.equal([
      'accept',
      'elicit: call "c1" may ask at most 1 question (maxQuestions)',
    ]);
  });

  it('counts for each call on its own', async () => {
    const got: unknown[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const a = askingMany(cold('------------(f|)', toolEvents), 1, 2, got);
      const jobs = [job(a, 'a'), job(a, 'b')];
      const options = { elicitor: () => accepted, maxQuestions: 2 };
      expectObservable(executeBatch(jobs, options)).toBe('-(qaqaQAQA)-(fg|)', {
        q: questionEvent(0, 'a', question),
        a: questionEvent(0, 'a', question, accepted),
        Q: questionEvent(1, 'b', question),
        A: questionEvent(1, 'b', question, accepted),
        f: finalEvent(0, 'a', 'done'),
        g: finalEvent(1, 'b', 'done'),
      });
    });
    await Promise.resolve();
    expect(got).to.deep.equal(['accept', 'accept', 'accept', 'accept']);
  });
});

describe("executeBatch: an elicitor's answer is checked against the question's schema", () => {
  const form: ElicitRequest = {
    message: 'Deploy where?',
    schema: {
      type: 'object',
      properties: {
        env: { type: 'string', enum: ['staging', 'prod'] },
        replicas: { type: 'integer', minimum: 1 },
      },
      required: ['env'],
    },
  };

  /** Runs one call that asks `form` of `elicitor`: the events' answers, what the tool got, and the console lines. */
  async function ask(answer: ElicitResult) {
    const got: ElicitResult[] = [];
    const lines: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void lines.push(args);
    try {
      testScheduler().run(({ cold, expectObservable }) => {
        const tool = stubTool('deploy', (_call, context) =>
          merge(
            cold('---(f|)', toolEvents),
            timer(1).pipe(
              tap(() => void context.elicit(form).then((a) => got.push(a))),
              ignoreElements(),
            ),
          ),
        );
        const elicitor = () => cold('-a|', { a: answer });
        expectObservable(executeBatch([job(tool, 'c1')], { elicitor })).toBe('-qa(f|)', {
          q: questionEvent(0, 'c1', form),
          a: questionEvent(0, 'c1', form, seen(answer)),
          f: finalEvent(0, 'c1', 'done'),
        });
      });
    } finally {
      console.error = original;
    }
    await Promise.resolve();
    return { got, lines };
  }

  /** What the events show and the tool gets for `answer`: itself when it fits, else cancel. */
  const fits = new Set<ElicitResult>();
  const seen = (answer: ElicitResult): ElicitResult => (fits.has(answer) ? answer : cancelled);

  it('passes an answer that fits to the tool', async () => {
    const answer: ElicitResult = { action: 'accept', content: { env: 'prod', replicas: 3 } };
    fits.add(answer);
    const { got, lines } = await ask(answer);
    expect(got).to.deep.equal([answer]);
    expect(lines).to.deep.equal([]);
  });

  for (const [content, problem] of [
    [{ env: 5 }, 'env: expected text'],
    [{ env: 'dev' }, 'env: expected one of "staging", "prod"'],
    [{ replicas: 2 }, 'env: required'],
    [{ env: 'prod', replicas: 0 }, 'replicas: at least 1'],
    [{ env: 'prod', colour: 'red' }, 'colour: the question has no such field'],
  ] as const) {
    it(`answers cancel in place of ${JSON.stringify(content)}, telling why in one line`, async () => {
      const answer = { action: 'accept', content } as unknown as ElicitResult;
      const { got, lines } = await ask(answer);
      expect(got).to.deep.equal([cancelled]);
      expect(lines).to.deep.equal([
        [
          `agenttool: the elicitor's answer for call "c1" does not fit its question (${problem}): the tool gets cancel`,
        ],
      ]);
    });
  }
});
