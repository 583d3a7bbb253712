/**
 * adapters/mcp-server/open-questions.ts: the one way a served call of MCP 2026-07-28 asks its
 * client, shared by held calls and tasks: keys, the call's token, answers ahead of time, answers
 * by key, and questions a client cannot be asked.
 */
import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import type { ElicitResult } from '../../../lib/contract.js';
import { CALL_TOKEN } from '../../../adapters/mcp-shared/call-token.js';
import { OpenQuestions, answerOf } from '../../../adapters/mcp-server/open-questions.js';

const FORM = { form: true, url: false } as const;
const form = (key?: string) =>
  ({
    message: 'Go on?',
    schema: { type: 'object', properties: { ok: { type: 'string' } } },
    ...(key === undefined ? {} : { key }),
  }) as const;

/** Questions of a client that declared form questions only, keyed `keys`, with no call token. */
const questionsOf = (
  keys: 'open' | 'once',
  more: Partial<ConstructorParameters<typeof OpenQuestions>[0]> = {},
) => new OpenQuestions({ modes: FORM, token: undefined, keys, changed: () => {}, ...more });

function answers(
  questions: OpenQuestions,
  key?: string,
): { got: ElicitResult[]; sub: Subscription } {
  const got: ElicitResult[] = [];
  const sub = questions.elicit(form(key)).subscribe((answer) => got.push(answer));
  return { got, sub };
}

describe('OpenQuestions: how a served call asks its client', () => {
  it('opens a form question under its key, with the call token, and answers it by that key', () => {
    let changes = 0;
    const questions = questionsOf('open', { token: 'tok', changed: () => changes++ });
    const { got } = answers(questions, 'confirm');
    expect(changes).to.equal(1);
    expect(questions.requests()).to.deep.equal({
      confirm: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Go on?',
          requestedSchema: form().schema,
          _meta: { [CALL_TOKEN]: 'tok' },
        },
      },
    });
    questions.deliver({
      other: { action: 'accept' },
      confirm: { action: 'accept', content: { ok: 'y' } },
    });
    expect(got).to.deep.equal([{ action: 'accept', content: { ok: 'y' } }]);
    expect(questions.size).to.equal(0);
  });

  it("'open' keys: a key is reused once its question is answered; a clash gets q<n>", () => {
    const questions = questionsOf('open');
    answers(questions, 'a');
    answers(questions, 'a');
    expect(Object.keys(questions.requests())).to.deep.equal(['a', 'q2']);
    questions.deliver({ a: { action: 'decline' } });
    answers(questions, 'a');
    expect(Object.keys(questions.requests())).to.have.members(['a', 'q2']);
  });

  it("'once' keys: a key once used is never used again (the tasks extension's rule)", () => {
    const questions = questionsOf('once');
    answers(questions, 'a');
    questions.deliver({ a: { action: 'decline' } });
    answers(questions, 'a');
    answers(questions);
    expect(Object.keys(questions.requests())).to.deep.equal(['q1', 'q2']);
  });

  it('answers a question at once from a preset answer, without opening it', () => {
    let changes = 0;
    const questions = questionsOf('open', {
      preset: { a: { action: 'accept', content: { ok: 'early' } } },
      changed: () => changes++,
    });
    const { got } = answers(questions, 'a');
    expect(got).to.deep.equal([{ action: 'accept', content: { ok: 'early' } }]);
    expect([questions.size, changes]).to.deep.equal([0, 0]);
    // A preset answer is used once.
    answers(questions, 'a');
    expect(questions.size).to.equal(1);
  });

  it('declines at once a question in a mode the client did not declare, sending nothing', () => {
    const questions = questionsOf('open');
    const got: ElicitResult[] = [];
    questions
      .elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/' })
      .subscribe((answer) => got.push(answer));
    expect(got).to.deep.equal([{ action: 'decline' }]);
    expect(questions.size).to.equal(0);
  });

  it('takes a question back when its asker unsubscribes, and says so', () => {
    let changes = 0;
    const questions = questionsOf('once', { changed: () => changes++ });
    const { sub } = answers(questions, 'a');
    sub.unsubscribe();
    expect([questions.size, changes]).to.deep.equal([0, 2]);
  });

  it('asks for roots, and takes an answer that is no list of roots as undefined', () => {
    const questions = questionsOf('open');
    const got: unknown[] = [];
    questions.roots('r').subscribe((roots) => got.push(roots));
    questions.roots('s').subscribe((roots) => got.push(roots));
    expect(questions.requests()['r']).to.deep.equal({ method: 'roots/list', params: {} });
    questions.deliver({ r: { roots: [{ uri: 'file:///w' }] }, s: { roots: 'no' } });
    expect(got).to.deep.equal([[{ uri: 'file:///w' }], undefined]);
  });

  it('reads anything that is not an elicitation result as cancel', () => {
    expect(answerOf(undefined)).to.deep.equal({ action: 'cancel' });
    expect(answerOf({ action: 'accept', content: [1] })).to.deep.equal({ action: 'cancel' });
    expect(answerOf({ action: 'accept' })).to.deep.equal({ action: 'accept', content: {} });
    expect(answerOf({ action: 'decline' })).to.deep.equal({ action: 'decline' });
  });
});
