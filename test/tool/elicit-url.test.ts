/**
 * A tool's question answered on a page (`context.elicit({ mode: 'url', message, url })`): what the
 * elicitor is asked, what the tool gets back, which URLs are refused before anyone sees them, and
 * what a view shows of the page.
 */
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import {
  elicitUrlProblem,
  elicitUrlView,
  executeBatch,
  tool,
  type ElicitRequest,
  type ElicitResult,
  type Elicitor,
  type ExecutionEvent,
} from '../../index.js';

/** A tool that asks `request` and answers with what it got (or the refusal's message). */
function asking(request: ElicitRequest) {
  return tool({
    name: 'connect',
    description: 'Sends the person to a page.',
    execute: async (_args, context) => {
      try {
        return JSON.stringify(await context.elicit(request));
      } catch (err) {
        return `refused: ${(err as Error).name}: ${(err as Error).message}`;
      }
    },
  });
}

async function run(request: ElicitRequest, elicitor?: Elicitor) {
  const events: ExecutionEvent[] = await lastValueFrom(
    executeBatch(
      [{ tool: asking(request), call: { id: 'c1', args: '{}' } }],
      elicitor === undefined ? {} : { elicitor },
    ).pipe(toArray()),
  );
  return { events, output: String(events.at(-1)?.result?.output) };
}

const PAGE: ElicitRequest = {
  mode: 'url',
  message: 'Connect your calendar.',
  url: 'https://calendar.example.com/connect?session=7',
};

describe('context.elicit with a URL question', () => {
  it('asks the elicitor the page as given, and shows it on the call, asked then answered', async () => {
    const asked: ElicitRequest[] = [];
    const { events, output } = await run(PAGE, (request) => {
      asked.push(request);
      return { action: 'accept', content: {} };
    });
    expect(asked).to.deep.equal([PAGE]);
    expect(JSON.parse(output)).to.deep.equal({ action: 'accept', content: {} });
    const questions = events.filter((e) => e.question !== undefined);
    expect(questions.map((e) => [e.question, e.answer])).to.deep.equal([
      [PAGE, undefined],
      [PAGE, { action: 'accept', content: {} }],
    ]);
  });

  it('drops whatever content an accept carries: what the person typed there is the page’s', async () => {
    const { output } = await run(
      PAGE,
      () => ({ action: 'accept', content: { password: 'hunter2' } }) as ElicitResult,
    );
    expect(JSON.parse(output)).to.deep.equal({ action: 'accept', content: {} });
  });

  it('takes an accept with no content at all', async () => {
    const { output } = await run(PAGE, () => ({ action: 'accept' }) as unknown as ElicitResult);
    expect(JSON.parse(output)).to.deep.equal({ action: 'accept', content: {} });
  });

  for (const action of ['decline', 'cancel'] as const)
    it(`gives the tool the person's ${action}`, async () => {
      const { output } = await run(PAGE, () => ({ action }));
      expect(JSON.parse(output)).to.deep.equal({ action });
    });

  it('is declined at once, nobody asked, without an elicitor', async () => {
    const { events, output } = await run(PAGE);
    expect(JSON.parse(output)).to.deep.equal({ action: 'decline' });
    expect(events.some((e) => e.question !== undefined)).to.equal(false);
  });

  const refused: [string, unknown, string][] = [
    [
      'a javascript: URL',
      'javascript:alert(1)',
      'the url must be http: or https:, not javascript:',
    ],
    ['a file: URL', 'file:///etc/passwd', 'the url must be http: or https:, not file:'],
    ['a relative path', '/connect', 'the url must be an absolute http: or https: URL'],
    ['text', 'go to the calendar', 'the url must be an absolute http: or https: URL'],
    [
      'credentials in the URL',
      'https://ada:secret@calendar.example.com/',
      'the url must not carry a user name or password',
    ],
    ['a number', 42, 'the url must be a string'],
    [
      'a URL past 2,048 characters',
      `https://example.com/${'a'.repeat(2100)}`,
      'the url is 2120 characters, past 2048',
    ],
  ];
  for (const [what, url, why] of refused)
    it(`refuses ${what} with a TypeError, asking nobody`, async () => {
      let asked = 0;
      const { output } = await run({ ...PAGE, url } as ElicitRequest, () => {
        asked++;
        return { action: 'accept', content: {} };
      });
      expect(output).to.equal(`refused: TypeError: elicit: ${why}`);
      expect(asked).to.equal(0);
    });

  it('refuses a mode it does not know', async () => {
    const { output } = await run({ ...PAGE, mode: 'popup' } as unknown as ElicitRequest, () => ({
      action: 'decline',
    }));
    expect(output).to.equal('refused: TypeError: elicit: the mode must be "form" or "url"');
  });
});

describe('elicitUrlView and elicitUrlProblem', () => {
  it('sets the host apart, with its port', () => {
    expect(elicitUrlView({ url: 'https://pay.example.com:8443/checkout?order=1' })).to.deep.equal({
      url: 'https://pay.example.com:8443/checkout?order=1',
      host: 'pay.example.com:8443',
      insecure: false,
      punycode: false,
    });
  });

  it('warns of plain http: and of a punycode host', () => {
    const view = elicitUrlView({ url: 'http://xn--pypal-4ve.com/login' });
    expect(view.insecure).to.equal(true);
    expect(view.punycode).to.equal(true);
    expect(view.host).to.equal('xn--pypal-4ve.com');
    // A host typed in another script is shown as the punycode it really is.
    expect(elicitUrlView({ url: 'https://pаypal.com/' }).host).to.match(/^xn--/);
  });

  it('throws for a URL a question may not carry, and says why otherwise undefined', () => {
    expect(() => elicitUrlView({ url: 'javascript:alert(1)' })).to.throw(
      TypeError,
      'elicit: the url must be http: or https:, not javascript:',
    );
    expect(elicitUrlProblem('https://example.com/')).to.equal(undefined);
  });
});
