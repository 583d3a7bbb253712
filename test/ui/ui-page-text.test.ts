/**
 * What the web page shows of a tool or a peer, rendered under a stand-in document: every text it
 * puts on the page (names, arguments, resources, progress, results, errors, questions, field
 * titles and descriptions, choices, defaults, tooltips) shows control and bidi characters as
 * escapes, by the rule the terminal follows; a question's odd bounds do not stop its form.
 */
import { expect } from 'chai';
import type { ElicitRequest } from '../../index.js';
import { applyRecord, emptyPageState, type PageState } from '../../cli/ui/page-state.js';
import type { StreamRecord } from '../../cli/ui/run-records.js';
import { shown } from '../../cli/ui/page/dom.js';
import { CallsTable } from '../../cli/ui/page/render-calls.js';
import { formContent } from '../../cli/ui/page/render-question.js';
import { Timeline } from '../../cli/ui/page/render-timeline.js';
import { FakeElement, installPageDom, readableText } from '../support/page-dom.js';

const RLO = '\u202e';
/** What must never reach the page raw: the characters views/visible.ts escapes, less \n and \t. */
const RAW = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

const question: ElicitRequest = {
  message: `${RLO}Approve the transfer?`,
  schema: {
    type: 'object',
    properties: {
      to: {
        type: 'string',
        title: `Payee ${RLO}eeyap`,
        description: `who gets it\x1b]52;c;aGk=\x07`,
        default: `Ada${RLO}`,
        maxLength: -1,
      },
      how: { type: 'string', enum: ['a', 'b'], enumNames: [`by ${RLO}air`, 'by boat'] },
      seat: { type: 'string', oneOf: [{ const: 'w', title: `window\u2066` }] },
      meals: {
        type: 'array',
        items: { anyOf: [{ const: 'x', title: `extra${RLO}` }] },
        minItems: -2,
      },
      count: { type: 'integer', minimum: 5, maximum: 1, title: `n\u200b` },
    },
  },
};

const records: StreamRecord[] = [
  { type: 'session', mode: 'live', title: `turn${RLO}.json` },
  {
    type: 'batch',
    jobs: [
      {
        index: 0,
        callId: 'a',
        name: `pay${RLO}`,
        args: `{"to":"${RLO}x"}`,
        resource: `bank${RLO}`,
      },
      { index: 1, callId: 'b', name: 'fetch', args: '{}', resource: '' },
      { index: 2, callId: 'c', name: 'fail', args: '{}', resource: '' },
    ],
  },
  { type: 'start', index: 0, at: 0 },
  { type: 'start', index: 1, at: 0 },
  { type: 'start', index: 2, at: 0 },
  {
    type: 'event',
    at: 5,
    index: 0,
    callId: 'a',
    final: false,
    result: { output: `step ${RLO}one\x1b[2J`, details: { progress: 1 } },
  },
  { type: 'event', at: 6, index: 0, callId: 'a', final: false, question },
  {
    type: 'event',
    at: 8,
    index: 1,
    callId: 'b',
    final: true,
    result: {
      output: [
        { type: 'input_text', text: `line one\r\nline ${RLO}two\tend\x9b31m` },
        { type: 'input_file', filename: `report${RLO}fdp.exe` },
      ],
    },
  },
  {
    type: 'event',
    at: 9,
    index: 2,
    callId: 'c',
    final: true,
    error: { name: 'Error', message: `no ${RLO}such\u2028thing` },
  },
];

describe('the web page shows what tools and peers send as text, never as control characters', () => {
  let removeDom: () => void;
  let state: PageState;
  let tbody: FakeElement;
  let lanes: FakeElement;

  before(() => {
    removeDom = installPageDom();
    state = records.reduce(
      (s, record) => applyRecord(s, { record, receivedAt: 100 }),
      emptyPageState(),
    );
    tbody = new FakeElement('tbody');
    lanes = new FakeElement('div');
    new CallsTable(tbody as never).render(state.run, state.batch!.rows, 10, true, true, state);
    new Timeline(lanes as never, new FakeElement('div') as never).render(
      state.run,
      state.batch!.rows,
      10,
      true,
    );
  });

  after(() => removeDom());

  it('writes a control or bidi character as its escape, keeping line breaks and tabs', () => {
    expect(shown(`a${RLO}b\x1b[1m\r\nc\td\u2066`)).to.equal('a\\u202eb\\x1b[1m\nc\td\\u2066');
  });

  it('escapes every text of the rows and the timeline, tooltips included', () => {
    const texts = [...readableText(tbody), ...readableText(lanes)];
    const raw = texts.filter((text) => RAW.test(text.replace(/[\n\t]/g, '')));
    expect(raw).to.deep.equal([]);
    const all = texts.join('\n');
    for (const escaped of [
      'pay\\u202e', // the tool's name, in its row and on its bar
      '{"to":"\\u202ex"}', // the arguments
      'bank\\u202e', // the resource's lane
      'step \\u202eone\\x1b[2J', // the progress
      'line one\nline \\u202etwo\tend\\x9b31m', // a result's text
      'report\\u202efdp.exe', // a file's name
      'no \\u202esuch\\u2028thing', // an error
    ])
      expect(all).to.contain(escaped);
  });

  it('escapes the question, its fields’ titles and descriptions, choices and defaults', () => {
    const form = tbody.descendants().find((el) => el.className === 'question')!;
    expect(form, 'the question’s form').to.not.equal(undefined);
    const texts = readableText(form);
    expect(texts.filter((text) => RAW.test(text))).to.deep.equal([]);
    expect(texts).to.include.members([
      '\\u202eApprove the transfer?',
      'Payee \\u202eeeyap',
      'who gets it\\x1b]52;c;aGk=\\x07',
      'Ada\\u202e',
      'by \\u202eair',
      'window\\u2066',
      ' extra\\u202e',
      'n\\u200b',
    ]);
  });

  it('builds the form of a question with bounds out of range, and answers the values', () => {
    const form = tbody.descendants().find((el) => el.className === 'question')!;
    const controls = form.querySelectorAll('input, select');
    const to = controls.find((el) => el.name === 'to')!;
    expect(to.maxLength).to.equal(-1); // left unset: a negative one is dropped, not thrown on
    const count = controls.find((el) => el.name === 'count')!;
    expect([count.min, count.max]).to.deep.equal(['', '']);
    // The default left as it is answers itself, not its escapes; a choice answers its value.
    controls.find((el) => el.name === 'how')!.value = 'a';
    count.value = '3';
    expect(formContent(form as never, question)).to.deep.equal({
      to: `Ada${RLO}`,
      how: 'a',
      meals: [],
      count: 3,
    });
  });
});
