/**
 * The web front in Chromium with a person in the loop: with `approve`, the page asks before each
 * call that is not read-only (one approved, one refused from its row); a tool's question renders
 * as a form in its call's row (text, number, select, checkbox, multiple choice, with defaults and
 * required fields), and the answer submitted there is what the tool's result uses; a page to
 * visit shows as a link with its host apart, answered on return; one call is
 * cancelled from its row while the others finish; all of it under the page's strict policy, with
 * no violation and no error logged.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { tool, ToolSet, type ElicitSchema, type OutputItem } from '../../index.js';
import { bundledTools } from '../../cli/tools/index.js';
import { takeWhile } from 'rxjs';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { replayRun } from '../../cli/ui/replay-run.js';
import type { RunRecord } from '../../cli/ui/run-records.js';
import { PAGE_POLICY, startUiServer, type UiServer } from '../../cli/ui/ui-server.js';
import { root } from '../support/cli.js';
import { launchChromium, type TestBrowser } from '../support/ui.js';
import { scaled } from '../support/time.js';

const call = (id: string, name: string, args: object): OutputItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});

/** A question with every kind of field a form draws. */
const TRIP = {
  type: 'object',
  properties: {
    traveller: { type: 'string', title: 'Traveller', minLength: 2 },
    nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 14, default: 2 },
    cabin: {
      type: 'string',
      title: 'Cabin',
      enum: ['economy', 'business'],
      enumNames: ['Economy', 'Business'],
      default: 'economy',
    },
    insured: { type: 'boolean', title: 'Insurance', default: true },
    // MCP's titled single choice.
    seat: {
      type: 'string',
      title: 'Seat',
      oneOf: [
        { const: 'w', title: 'Window' },
        { const: 'a', title: 'Aisle' },
      ],
    },
    meals: {
      type: 'array',
      title: 'Meals',
      items: { type: 'string', enum: ['breakfast', 'lunch', 'dinner'] },
      default: ['breakfast'],
    },
  },
  required: ['traveller', 'nights', 'cabin'],
} as ElicitSchema;

const bookTrip = tool({
  name: 'book_trip',
  description: 'Asks the person about the trip, then books it.',
  parameters: z.object({ to: z.string() }),
  annotations: { readOnlyHint: true },
  async execute({ to }, context) {
    const answer = await context.elicit({ message: `Book the trip to ${to}?`, schema: TRIP });
    if (answer.action !== 'accept') return `not booked (${answer.action})`;
    return `booked ${to}: ${JSON.stringify(answer.content)}`;
  },
});

const connectCalendar = tool({
  name: 'connect_calendar',
  description: 'Sends the person to the calendar’s page to connect it.',
  parameters: z.object({}),
  annotations: { readOnlyHint: true },
  async execute(_args, context) {
    const answer = await context.elicit({
      mode: 'url',
      message: 'Connect your calendar on its own page.',
      url: 'https://calendar.example.com/connect?from=web',
    });
    return answer.action === 'accept' ? 'calendar connected' : `not connected (${answer.action})`;
  },
});

const TURN: OutputItem[] = [
  call('list', 'list_dir', { path: 'cli/tools' }),
  call('yes', 'bash', { command: 'echo approved' }),
  call('no', 'bash', { command: 'echo never' }),
  call('trip', 'book_trip', { to: 'Lisbon' }),
  call('long', 'slow_count', { to: 1000, step_ms: 50 }),
  call('calendar', 'connect_calendar', {}),
];

const row = (index: number): string => `tr[data-call-index="${index}"]`;

async function phases(page: Page): Promise<string[]> {
  return page.$$eval('tr[data-call-index]', (rows) =>
    rows.map((r) => r.getAttribute('data-phase') ?? ''),
  );
}

describe('the web front in Chromium: approve, refuse, answer, cancel one', function () {
  this.timeout(scaled(60_000));
  let server: UiServer;
  let chrome: TestBrowser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    chrome = await launchChromium();
    server = await startUiServer({
      source: liveTurn(TURN, new ToolSet([...bundledTools, bookTrip, connectCalendar]), {
        title: 'people turn',
        approve: true,
      }),
    });
    page = await chrome.context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    // Installed before any page script runs; the policy does not apply to what the test injects.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
      });
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await mkdir(join(root, 'test-output'), { recursive: true });
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  it('asks before the calls that are not read-only: one approved, one refused from its row', async () => {
    const response = await page.goto(server.url.href);
    expect(response?.headers()['content-security-policy']).to.equal(PAGE_POLICY);
    await page.waitForSelector('[data-action="run"]:not([disabled])');
    await page.click('[data-action="run"]');
    await page.waitForSelector(`${row(1)}[data-awaits="approval"]`);
    await page.waitForSelector(`${row(2)}[data-awaits="approval"]`);
    await page.waitForSelector(`${row(0)}[data-phase="done"]`);
    expect(await page.isVisible(`${row(0)} button[data-action="approve-call"]`)).to.equal(false);
    expect(await page.isVisible(`${row(4)} button[data-action="approve-call"]`)).to.equal(false);

    // Refuse (the model is told no) and Cancel (the call stops) differ in words and in look.
    const button = (action: string) => `${row(2)} button[data-action="${action}"]`;
    const looks = async (action: string) => ({
      text: await page.textContent(button(action)),
      title: await page.getAttribute(button(action), 'title'),
      background: await page.$eval(button(action), (b) => getComputedStyle(b).backgroundColor),
    });
    const refuseLook = await looks('refuse-call');
    const cancelLook = await looks('cancel-call');
    expect(refuseLook).to.include({ text: 'Refuse', title: 'Tell the model no' });
    expect(cancelLook).to.include({ text: 'Cancel', title: 'Stop this call' });
    expect(refuseLook.background).to.not.equal(cancelLook.background);
    expect(await page.getAttribute(button('approve-call'), 'title')).to.equal('Run this call');
    // The time the call has waited for a person ticks while it waits.
    const waiting = `${row(2)} .waiting`;
    const waited = async () => Number(await page.getAttribute(waiting, 'data-waiting-ms'));
    const first = await waited();
    await page.waitForFunction(
      ([selector, before]) =>
        Number(document.querySelector(selector)?.getAttribute('data-waiting-ms')) > before,
      [waiting, first] as const,
    );
    expect(await page.textContent(waiting)).to.match(/^waiting \d+\.\d\ds$/);
    expect(await page.isVisible(`${row(0)} .waiting`)).to.equal(false);
    await page.screenshot({ path: join(root, 'test-output', 'ui-approval.png'), fullPage: true });

    await page.click(`${row(1)} button[data-action="approve-call"]`);
    // The note typed in the row goes with the refusal, for the model.
    expect(await page.isVisible(`${row(2)} input.note`)).to.equal(true);
    expect(await page.isVisible(`${row(0)} input.note`)).to.equal(false);
    await page.fill(`${row(2)} input.note`, 'not on this machine');
    const refusal = page.waitForRequest((request) => request.url().includes('/calls/2/refuse'));
    await page.click(`${row(2)} button[data-action="refuse-call"]`);
    expect((await refusal).postDataJSON()).to.deep.equal({ note: 'not on this machine' });
    await page.waitForSelector(`${row(1)}[data-phase="done"]`);
    await page.waitForSelector(`${row(2)}[data-phase="failed"]`);
    expect(await page.textContent(`${row(1)} td.output`)).to.contain('approved');
    expect(await page.textContent(`${row(2)} td.output`)).to.contain('call "no" was not approved');
    expect(await page.getAttribute(row(1), 'data-awaits')).to.equal(null);
    // The decision stays in the row, with how long it took and the note the model was given.
    expect(await page.isVisible(waiting)).to.equal(false);
    expect(await page.textContent(`${row(1)} [data-decision="approved"]`)).to.match(
      /^approved after \d+\.\d\ds$/,
    );
    expect(await page.textContent(`${row(2)} [data-decision="refused"]`)).to.match(
      /^refused after \d+\.\d\ds$/,
    );
    expect(await page.getAttribute(`${row(2)} [data-review-note]`, 'data-review-note')).to.equal(
      'not on this machine',
    );
    await page.screenshot({
      path: join(root, 'test-output', 'ui-approval-decided.png'),
      fullPage: true,
    });
  });

  it('shows the tool’s question as a form in its row, and the tool’s result uses the answer', async () => {
    const form = `${row(3)} form.question`;
    await page.waitForSelector(form);
    expect(await page.getAttribute(row(3), 'data-awaits')).to.equal('answer');
    expect(await page.textContent(`${form} .ask`)).to.equal('Book the trip to Lisbon?');
    // The schema's defaults are filled in.
    expect(await page.inputValue(`${form} [name="nights"]`)).to.equal('2');
    expect(await page.inputValue(`${form} select[name="cabin"]`)).to.equal('economy');
    expect(await page.isChecked(`${form} [name="insured"]`)).to.equal(true);
    expect(await page.isChecked(`${form} [name="meals"][value="breakfast"]`)).to.equal(true);
    await page.screenshot({ path: join(root, 'test-output', 'ui-question.png'), fullPage: true });

    // A required field left empty: the browser keeps the form, nothing is sent.
    await page.click(`${form} button[data-answer="accept"]`);
    expect(await page.isVisible(form)).to.equal(true);

    await page.fill(`${form} [name="traveller"]`, 'Ada');
    await page.fill(`${form} [name="nights"]`, '3');
    await page.selectOption(`${form} select[name="cabin"]`, 'business');
    await page.uncheck(`${form} [name="insured"]`);
    await page.selectOption(`${form} select[name="seat"]`, { label: 'Aisle' });
    await page.check(`${form} [name="meals"][value="dinner"]`);
    await page.click(`${form} button[data-answer="accept"]`);
    await page.waitForSelector(`${row(3)}[data-phase="done"]`);
    expect(await page.isVisible(form)).to.equal(false);
    const text = await page.textContent(`${row(3)} td.output`);
    expect(text).to.contain('booked Lisbon:');
    expect(JSON.parse(text!.slice(text!.indexOf('{')))).to.deep.equal({
      traveller: 'Ada',
      nights: 3,
      cabin: 'business',
      insured: false,
      seat: 'a',
      meals: ['breakfast', 'dinner'],
    });
  });

  it('shows a page to visit as a link with its host apart; "I\'m back" answers it', async () => {
    const tabs = chrome.context.pages().length;
    const form = `${row(5)} form.question`;
    await page.waitForSelector(form);
    expect(await page.getAttribute(row(5), 'data-awaits')).to.equal('answer');
    expect(await page.textContent(`${form} .ask`)).to.equal(
      'Connect your calendar on its own page.',
    );
    const link = `${form} a.page`;
    expect(await page.textContent(link)).to.equal('https://calendar.example.com/connect?from=web');
    expect(await page.getAttribute(link, 'href')).to.equal(
      'https://calendar.example.com/connect?from=web',
    );
    expect(await page.getAttribute(link, 'target')).to.equal('_blank');
    expect(await page.getAttribute(link, 'rel')).to.equal('noopener noreferrer');
    expect(await page.textContent(`${form} .host strong`)).to.equal('calendar.example.com');
    expect(await page.isVisible(`${form} .warn`)).to.equal(false);
    // Nothing was opened for the person.
    expect(chrome.context.pages()).to.have.length(tabs);
    expect(await page.textContent(`${form} button[data-answer="accept"]`)).to.equal("I'm back");
    await page.click(`${form} button[data-answer="accept"]`);
    await page.waitForSelector(`${row(5)}[data-phase="done"]`);
    expect(await page.textContent(`${row(5)} td.output`)).to.contain('calendar connected');
  });

  it('cancels one call from its row; every other call has finished on its own', async () => {
    await page.waitForSelector(`${row(4)}[data-phase="running"]`);
    await page.click(`${row(4)} button[data-action="cancel-call"]`);
    await page.waitForSelector('[data-batch-phase="finished"]');
    expect(await phases(page)).to.deep.equal([
      'done',
      'done',
      'failed',
      'done',
      'cancelled',
      'done',
    ]);
    expect(await page.textContent(`${row(4)} td.output`)).to.contain('call cancelled by the user');
    await page.screenshot({ path: join(root, 'test-output', 'ui-people.png'), fullPage: true });
    expect(errors).to.deep.equal([]);
  });

  it('replays the run up to the open question: the question shows, with nothing to answer', async () => {
    const saved: RunRecord[] = [];
    server.runs.records.pipe(takeWhile((r) => r.type !== 'output', true)).subscribe((r) => {
      saved.push(r);
    });
    const asked = saved.findIndex((r) => r.type === 'event' && r.question !== undefined);
    expect(asked).to.be.greaterThan(0);
    const replay = await startUiServer({
      source: replayRun(saved.slice(0, asked + 1), { title: 'run.jsonl', speed: 4 }),
    });
    try {
      const other = await chrome.context.newPage();
      await other.goto(replay.url.href);
      await other.waitForSelector('[data-action="run"]:not([disabled])');
      await other.click('[data-action="run"]');
      await other.waitForSelector(`${row(3)}[data-awaits="answer"]`);
      expect(await other.textContent(`${row(3)} .asking`)).to.equal('Book the trip to Lisbon?');
      expect(await other.$$('form.question')).to.have.length(0);
      expect(await other.isVisible('button[data-action="approve-call"]')).to.equal(false);
      await other.close();
    } finally {
      await replay.close();
    }
  });
});

/** A question such as a hostile peer may send: bidi overrides in its texts, a negative bound. */
const hostileAsk = tool({
  name: 'hostile_ask',
  description: 'Asks with a reversed message and an out-of-range bound, then echoes the answer.',
  parameters: z.object({}),
  annotations: { readOnlyHint: true },
  async execute(_args, context) {
    const answer = await context.elicit({
      message: '\u202eevlovni ton',
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name \u202eeman', maxLength: -1 },
          size: { type: 'string', enum: ['s', 'l'], enumNames: ['\u202esmall', 'large'] },
        },
        required: ['name'],
      },
    });
    return answer.action === 'accept' ? `got ${JSON.stringify(answer.content)}` : answer.action;
  },
});

describe('the web front in Chromium: a question with bidi controls and an odd bound', function () {
  this.timeout(scaled(60_000));
  let server: UiServer;
  let chrome: TestBrowser;

  before(async () => {
    chrome = await launchChromium();
    server = await startUiServer({
      source: liveTurn([call('q', 'hostile_ask', {})], new ToolSet([hostileAsk]), {
        title: 'hostile question',
      }),
    });
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  it('shows the U+202E as an escape, builds the form, and the answer reaches the tool', async () => {
    const page = await chrome.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(server.url.href);
    await page.waitForSelector('[data-action="run"]:not([disabled])');
    await page.click('[data-action="run"]');
    const form = `${row(0)} form.question`;
    await page.waitForSelector(form);
    expect(await page.textContent(`${form} .ask`)).to.equal('\\u202eevlovni ton');
    expect(await page.textContent(`${form} .title`)).to.equal('Name \\u202eeman *');
    expect(await page.textContent(`${form} select[name="size"] option[value="s"]`)).to.equal(
      '\\u202esmall',
    );
    await page.fill(`${form} [name="name"]`, 'Ada');
    await page.selectOption(`${form} select[name="size"]`, 's');
    await page.click(`${form} button[data-answer="accept"]`);
    await page.waitForSelector(`${row(0)}[data-phase="done"]`);
    expect(await page.textContent(`${row(0)} td.output`)).to.equal('got {"name":"Ada","size":"s"}');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
