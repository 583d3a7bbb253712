/**
 * The web front in Chromium when the page goes away while a call waits for a person: reloaded
 * mid-question, the page shows the question's form again and the pending approval's buttons, and
 * what it answers then reaches the call; a second tab sees the same waits, and what it sends
 * after the first tab answered is refused with a message, the call keeping the first answer.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { tool, ToolSet, type OutputItem } from '../../index.js';
import { bundledTools } from '../../cli/tools/index.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { startUiServer, type UiServer } from '../../cli/ui/ui-server.js';
import { launchChromium, type TestBrowser } from '../support/ui.js';
import { scaled } from '../support/time.js';

const pickColour = tool({
  name: 'pick_colour',
  description: 'Asks the person for a colour, then says which.',
  parameters: z.object({}),
  annotations: { readOnlyHint: true },
  async execute(_args, context) {
    const answer = await context.elicit({
      message: 'Which colour?',
      schema: {
        type: 'object',
        properties: { colour: { type: 'string', title: 'Colour', enum: ['red', 'blue'] } },
        required: ['colour'],
      },
    });
    return answer.action === 'accept' ? `picked ${String(answer.content.colour)}` : answer.action;
  },
});

const TURN: OutputItem[] = [
  { type: 'function_call', call_id: 'pick', name: 'pick_colour', arguments: '{}' },
  { type: 'function_call', call_id: 'sh', name: 'bash', arguments: '{"command":"echo approved"}' },
  // Keeps the run going while the second tab speaks; cancelled at the end.
  {
    type: 'function_call',
    call_id: 'long',
    name: 'slow_count',
    arguments: '{"to":1000,"step_ms":50}',
  },
];

const row = (index: number): string => `tr[data-call-index="${index}"]`;
const form = `${row(0)} form.question`;

/** POSTs `body` to `path` from `page`, as its own buttons do (its token, its origin). */
async function postFrom(
  page: Page,
  path: string,
  body?: object,
): Promise<{ status: number; error?: string }> {
  return page.evaluate(
    async ({ path, body }) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="agenttool-token"]')!;
      const response = await fetch(`${path}?token=${encodeURIComponent(token.content)}`, {
        method: 'POST',
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const json = (await response.json()) as { error?: string };
      return {
        status: response.status,
        ...(json.error === undefined ? {} : { error: json.error }),
      };
    },
    { path, body },
  );
}

describe('the web front in Chromium: a page reloaded while a call waits for a person', function () {
  this.timeout(scaled(60_000));
  let server: UiServer;
  let chrome: TestBrowser;
  const errors: string[] = [];

  before(async () => {
    chrome = await launchChromium();
    server = await startUiServer({
      source: liveTurn(TURN, new ToolSet([...bundledTools, pickColour]), {
        title: 'reload turn',
        approve: true,
      }),
    });
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  async function open(): Promise<Page> {
    const page = await chrome.context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      // The browser logs each refusal the test asks for; anything else is an error.
      const refused = /status of 409/.test(message.text());
      if (message.type() === 'error' && !refused) errors.push(message.text());
    });
    await page.goto(server.url.href);
    return page;
  }

  it('shows the form and the approval again after a reload; the answer given then reaches the call', async () => {
    const page = await open();
    await page.waitForSelector('[data-action="run"]:not([disabled])');
    await page.click('[data-action="run"]');
    await page.waitForSelector(form);
    await page.waitForSelector(`${row(1)}[data-awaits="approval"]`);

    await page.reload();
    await page.waitForSelector(form);
    expect(await page.getAttribute(row(0), 'data-awaits')).to.equal('answer');
    expect(await page.getAttribute(row(0), 'data-phase')).to.equal('asking');
    expect(await page.textContent(`${form} .ask`)).to.equal('Which colour?');
    await page.waitForSelector(`${row(1)}[data-awaits="approval"] [data-action="approve-call"]`);
    expect(await page.getAttribute(row(1), 'data-phase')).to.equal('approving');

    // A second tab, opened now, is shown the same waits.
    const other = await open();
    await other.waitForSelector(form);
    await other.waitForSelector(`${row(1)}[data-awaits="approval"]`);

    await page.selectOption(`${form} select[name="colour"]`, 'blue');
    await page.click(`${form} button[data-answer="accept"]`);
    await page.waitForSelector(`${row(0)}[data-phase="done"]`);
    expect(await page.textContent(`${row(0)} td.output`)).to.contain('picked blue');
    // The other tab sees the answer land, and what it sends for the question now is refused.
    await other.waitForSelector(`${row(0)}[data-phase="done"]`);
    expect(
      await postFrom(other, 'calls/0/answer', { action: 'decline', question: 1 }),
    ).to.deep.equal({
      status: 409,
      error: "call #0's question was answered already; the first answer counts",
    });

    await page.click(`${row(1)} button[data-action="approve-call"]`);
    await page.waitForSelector(`${row(1)}[data-phase="done"]`);
    expect(await page.textContent(`${row(1)} td.output`)).to.contain('approved');
    expect(await postFrom(other, 'calls/1/refuse')).to.deep.equal({
      status: 409,
      error: 'call #1 was approved already; the first answer counts',
    });
    await page.click('[data-action="cancel-batch"]');
    await other.waitForSelector('[data-batch-phase="finished"]');
    expect(await other.textContent(`${row(0)} td.output`)).to.contain('picked blue');
    expect(errors).to.deep.equal([]);
    await other.close();
    await page.close();
  });
});
