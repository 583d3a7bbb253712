/**
 * What a person does to single calls from the web front (cancel one, approve or refuse one, answer
 * a tool's question), run through the engine: cancels in virtual time, where the cancelled call
 * ends with one CancelledError final, its tool is unsubscribed at that frame, and the rest of the
 * batch, its resource chain included, goes on; approvals and answers reach the engine once, and
 * only when the call is waiting for them.
 */
import { expect } from 'chai';
import { firstValueFrom, NEVER, toArray } from 'rxjs';
import { z } from 'zod';
import {
  CancelledError,
  executeBatch,
  executeBatchWithStarts,
  tool,
  type ElicitResult,
  type ElicitSchema,
  type Job,
} from '../../index.js';
import { errorEvent, finalEvent, stubTool } from '../../testing/index.js';
import { job, testScheduler, toolEvents } from '../../marbles/support.js';
import { CallControls, CANCELLED_BY_USER } from '../../cli/ui/call-controls.js';
import { checkAnswer, parseAnswer } from '../../cli/ui/check-answer.js';

const cancelled = new CancelledError(CANCELLED_BY_USER);
const ids = (jobs: readonly Job[]): string[] => jobs.map((j) => j.call.id);

describe('web front: cancelling one call through its signal', () => {
  it('ends a running call with a CancelledError and unsubscribes its tool; the chain goes on', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('------(f|)', toolEvents);
      const b = cold('--(f|)', toolEvents);
      const c = cold('----(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'r' }), 'a'),
        job(stubTool('b', b, { resource: 'r' }), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      const controls = new CallControls(ids(jobs));
      scheduler.schedule(() => controls.cancel(0), 3);
      scheduler.schedule(() => controls.cancel(0), 4); // asked twice: nothing more happens
      scheduler.schedule(() => controls.cancel(2), 5); // c has ended: nothing happens
      expectObservable(executeBatch(controls.withSignals(jobs))).toBe('---ac(b|)', {
        a: errorEvent(0, 'a', cancelled),
        b: finalEvent(1, 'b', 'done'),
        c: finalEvent(2, 'c', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('---^-!');
      expectSubscriptions(c.subscriptions).toBe('^---!');
    });
  });

  it('ends a waiting call at once, without running its tool; the one before it goes on', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('------(f|)', toolEvents);
      const b = cold('--(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'r' }), 'a'),
        job(stubTool('b', b, { resource: 'r' }), 'b'),
      ];
      const controls = new CallControls(ids(jobs));
      scheduler.schedule(() => controls.cancel(1), 1);
      expectObservable(executeBatch(controls.withSignals(jobs))).toBe('-b----(a|)', {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', cancelled),
      });
      expectSubscriptions(a.subscriptions).toBe('^-----!');
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('keeps the tools as they are: only the jobs gain a signal each', () => {
    const t = stubTool('t', NEVER, { resource: 'shell:session' });
    const jobs = [job(t, 'x'), job(t, 'y')];
    const controls = new CallControls(ids(jobs));
    const signalled = controls.withSignals(jobs);
    expect(signalled.map((j) => j.tool)).to.deep.equal([t, t]);
    expect(signalled.map((j) => j.call)).to.deep.equal(jobs.map((j) => j.call));
    controls.cancel(1);
    expect(signalled.map((j) => j.signal?.aborted)).to.deep.equal([false, true]);
    expect(controls.requested(1)).to.equal(true);
  });
});

describe('web front: approving a call', () => {
  it('answers the engine once, when the call waits for it', async () => {
    const controls = new CallControls(['a', 'b']);
    expect(controls.decide(0, true)).to.equal('not-asked');
    const approved = firstValueFrom(controls.approval(0).pipe(toArray()));
    const refused = firstValueFrom(controls.approval(1).pipe(toArray()));
    expect(controls.awaitsApproval(0)).to.equal(true);
    expect(controls.decide(0, true)).to.equal('taken');
    // A second decision (another tab's) is refused: the first counts.
    expect(controls.decide(0, false)).to.deep.equal({ already: 'approved' });
    expect(controls.decide(1, false)).to.equal('taken');
    expect(controls.decide(1, true)).to.deep.equal({ already: 'refused' });
    expect(await approved).to.deep.equal([true]);
    expect(await refused).to.deep.equal([false]);
  });

  it('forgets an approval the engine stopped waiting for', () => {
    const controls = new CallControls(['a']);
    controls.approval(0).subscribe().unsubscribe();
    expect(controls.awaitsApproval(0)).to.equal(false);
    expect(controls.decide(0, true)).to.equal('not-asked');
  });
});

const QUESTION: ElicitSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    size: { type: 'string', enum: ['S', 'M', 'L'] },
    count: { type: 'integer', minimum: 1, maximum: 9 },
    ok: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, maxItems: 1 },
  },
  required: ['name'],
};

describe('web front: answering a question', () => {
  it('checks a titled multiple choice (items.anyOf) against its values', () => {
    const titled: ElicitSchema = {
      type: 'object',
      properties: {
        colours: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'r', title: 'Red' },
              { const: 'g', title: 'Green' },
            ],
          },
        },
      },
    };
    expect(checkAnswer(titled, { colours: ['g', 'r'] })).to.equal(undefined);
    expect(checkAnswer(titled, { colours: ['Red'] })).to.equal('colours: "Red" is not a choice');
  });

  it('checks accepted content against the question, one line per problem', () => {
    expect(
      checkAnswer(QUESTION, { name: 'Ada', size: 'M', count: 3, ok: true, tags: ['x'] }),
    ).to.equal(undefined);
    const wrong: [Record<string, string | number | boolean | string[]>, string][] = [
      [{}, 'name: required'],
      [{ name: 'A' }, 'name: at least 2 characters'],
      [{ name: 'Ada', size: 'XL' }, 'size: expected one of "S", "M", "L"'],
      [{ name: 'Ada', count: 2.5 }, 'count: expected a whole number'],
      [{ name: 'Ada', count: 10 }, 'count: at most 9'],
      [{ name: 'Ada', ok: 'yes' }, 'ok: expected true or false'],
      [{ name: 'Ada', tags: ['z'] }, 'tags: "z" is not a choice'],
      [{ name: 'Ada', tags: ['x', 'y'] }, 'tags: choose at most 1'],
      [{ name: 'Ada', extra: 1 }, 'extra: the question has no such field'],
    ];
    for (const [content, message] of wrong)
      expect(checkAnswer(QUESTION, content)).to.equal(message);
  });

  it('checks an answer against the bounds its form uses: one no answer could meet is left out', () => {
    const odd = {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: -1 },
        count: { type: 'integer', minimum: 5, maximum: 1 },
        tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, maxItems: 0.5 },
      },
    } as ElicitSchema;
    expect(checkAnswer(odd, { name: 'Ada', count: 3, tags: ['x', 'y'] })).to.equal(undefined);
  });

  it('takes a titled single choice (oneOf) as a choice among its values', () => {
    const titled = {
      type: 'object',
      properties: {
        color: {
          type: 'string',
          oneOf: [
            { const: 'r', title: 'Red' },
            { const: 'g', title: 'Green' },
          ],
        },
      },
    } as ElicitSchema;
    expect(checkAnswer(titled, { color: 'g' })).to.equal(undefined);
    expect(checkAnswer(titled, { color: 'Green' })).to.equal('color: expected one of "r", "g"');
  });

  it('reads a POSTed answer, saying what is wrong with one that is not', () => {
    expect(parseAnswer({ action: 'decline' })).to.deep.equal({ action: 'decline' });
    expect(parseAnswer({ action: 'accept', content: { a: 1 } })).to.deep.equal({
      action: 'accept',
      content: { a: 1 },
    });
    expect(parseAnswer(undefined)).to.equal('the answer must be a JSON object with an "action"');
    expect(parseAnswer({ action: 'yes' })).to.equal(
      '"action" must be "accept", "decline" or "cancel"',
    );
    expect(parseAnswer({ action: 'accept' })).to.equal(
      'an accepted answer carries its "content" as an object',
    );
  });

  it('gives a running tool the answer from the page; content that does not fit is refused', async () => {
    const ask = tool({
      name: 'ask',
      description: 'asks for a name',
      parameters: z.object({}),
      async execute(_args, context) {
        const answer = await context.elicit({ message: 'Your name?', schema: QUESTION });
        return answer.action === 'accept' ? `hello ${String(answer.content.name)}` : answer.action;
      },
    });
    const jobs: Job[] = [
      { tool: ask, call: { id: 'one', args: '{}' } },
      { tool: ask, call: { id: 'two', args: '{}' } },
    ];
    const controls = new CallControls(ids(jobs));
    const events = firstValueFrom(
      executeBatchWithStarts(controls.withSignals(jobs), { elicitor: controls.elicitor }).pipe(
        toArray(),
      ),
    );
    for (let i = 0; i < 50 && (!controls.question(0) || !controls.question(1)); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(controls.question(0)).to.deep.equal({ message: 'Your name?', schema: QUESTION });
    expect(controls.answer(0, { action: 'accept', content: { name: 'A' } })).to.deep.equal({
      invalid: 'name: at least 2 characters',
    });
    expect(controls.answer(0, { action: 'accept', content: { name: 'Ada' } })).to.equal('taken');
    expect(controls.answer(0, { action: 'decline' })).to.deep.equal({ already: 'answered' });
    expect(controls.answer(1, { action: 'decline' } as ElicitResult)).to.equal('taken');
    const finals = (await events).filter((e) => 'final' in e && e.final);
    expect(finals.map((e) => ('result' in e ? e.result?.output : undefined))).to.have.members([
      'hello Ada',
      'decline',
    ]);
  });

  it('numbers each call’s questions: an answer to one answered before never reaches a later one', async () => {
    const controls = new CallControls(['a']);
    const ask = (message: string) =>
      firstValueFrom(
        controls.elicitor(
          { message, schema: { type: 'object', properties: {} } },
          { id: 'a', args: '' },
        ),
      );
    expect(controls.answer(0, { action: 'decline' }, 1)).to.equal('not-asked');
    const first = ask('first?');
    expect(controls.answer(0, { action: 'accept', content: {} }, 1)).to.equal('taken');
    expect(await first).to.deep.equal({ action: 'accept', content: {} });
    const second = ask('second?');
    // Another tab's answer to the first question, sent before it saw the second.
    expect(controls.answer(0, { action: 'decline' }, 1)).to.deep.equal({ already: 'answered' });
    expect(controls.question(0)?.message).to.equal('second?');
    expect(controls.answer(0, { action: 'decline' }, 3)).to.equal('not-asked');
    expect(controls.answer(0, { action: 'decline' }, 2)).to.equal('taken');
    expect(await second).to.deep.equal({ action: 'decline' });
  });

  it('forgets a question whose call was cancelled', async () => {
    const controls = new CallControls(['a']);
    const sub = controls
      .elicitor({ message: 'q', schema: { type: 'object', properties: {} } }, { id: 'a', args: '' })
      .subscribe();
    expect(controls.question(0)?.message).to.equal('q');
    sub.unsubscribe();
    expect(controls.question(0)).to.equal(undefined);
    expect(controls.answer(0, { action: 'cancel' })).to.equal('not-asked');
  });

  it('declines at once a question from a call the run does not hold', async () => {
    const controls = new CallControls(['a']);
    const answer = await firstValueFrom(
      controls.elicitor(
        { message: 'q', schema: { type: 'object', properties: {} } },
        { id: 'zzz', args: '' },
      ),
    );
    expect(answer).to.deep.equal({ action: 'decline' });
  });
});
