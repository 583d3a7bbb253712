import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { executeBatch, jobsFromItems, tool, ToolSet } from '../../index.js';
import { WireQuestions } from '../../adapters/wire/index.js';
import { until } from '../support/until.js';

const question = (message: string) => ({
  message,
  schema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } },
});

const asker = tool({
  name: 'asker',
  description: 'Asks two questions at once',
  parameters: z.object({}),
  execute: async (_args, context) => {
    const [first, second] = await Promise.all([
      context.elicit(question('first?')),
      context.elicit(question('second?')),
    ]);
    return `${first.action} ${second.action}`;
  },
});

const calls = [{ type: 'function_call', call_id: 'a1', name: 'asker', arguments: '{}' } as const];

describe('WireQuestions: questions a front answers by their id on the wire', () => {
  it('numbers each call’s questions as the encoders do, and answers two asked at once apart', async () => {
    const questions = new WireQuestions();
    const done = lastValueFrom(
      executeBatch(jobsFromItems(calls, new ToolSet([asker])), {
        elicitor: questions.elicitor,
      }).pipe(toArray()),
    );
    await until(() => questions.pending.length === 2, 'both questions asked');
    expect(questions.pending).to.deep.equal(['a1-q1', 'a1-q2']);
    expect(questions.answer('a1-q2', { action: 'decline' })).to.equal(true);
    expect(questions.answer('a1-q2', { action: 'decline' })).to.equal(false);
    expect(questions.answer('a1-q1', { action: 'accept', content: { ok: true } })).to.equal(true);
    const events = await done;
    expect(events.at(-1)!.result!.output).to.equal('accept decline');
  });

  it('drops the questions of a call that ends first: a later answer finds nothing', async () => {
    const questions = new WireQuestions();
    const abort = new AbortController();
    const done = lastValueFrom(
      executeBatch(jobsFromItems(calls, new ToolSet([asker])), {
        elicitor: questions.elicitor,
        signal: abort.signal,
      }).pipe(toArray()),
    );
    await until(() => questions.pending.length === 2, 'both questions asked');
    abort.abort();
    await done;
    expect(questions.pending).to.deep.equal([]);
    expect(questions.answer('a1-q1', { action: 'decline' })).to.equal(false);
  });
});
