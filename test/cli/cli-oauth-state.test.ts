/**
 * `--auth`'s loopback redirect takes only the redirect of the authorization it started: the
 * authorization URL carries a random `state`, and a callback without it (another program on the
 * machine, a forged or stale link) is answered 400 and ignored while the login goes on waiting.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginProvider } from '../../cli/oauth-login.js';

describe('agenttool --auth: the loopback redirect checks the state', () => {
  const saved = { browser: process.env.BROWSER, file: process.env.AGENTTOOL_OAUTH_FILE };
  before(() => {
    process.env.BROWSER = '';
    process.env.AGENTTOOL_OAUTH_FILE = join(
      mkdtempSync(join(tmpdir(), 'agenttool-state-')),
      'o.json',
    );
  });
  after(() => {
    for (const [key, value] of [
      ['BROWSER', saved.browser],
      ['AGENTTOOL_OAUTH_FILE', saved.file],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  });

  /** A provider that has started an authorization; its `state` and a `callback(query)` to call. */
  async function started() {
    const provider = await loginProvider('https://mcp.example/mcp', () => undefined);
    const state = await provider.state!();
    const authorize = new URL('https://as.example/authorize');
    authorize.searchParams.set('state', state);
    await provider.redirectToAuthorization(authorize);
    let settled: unknown = 'waiting';
    provider.authorizationResponse().then(
      (response) => (settled = response),
      (error: Error) => (settled = error.message),
    );
    const callback = async (query: Record<string, string>) => {
      const url = new URL(provider.redirectUrl!);
      for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
      const response = await fetch(url);
      // The response is written after the handler has answered or refused the login.
      return { status: response.status, text: await response.text() };
    };
    return { provider, state, callback, settled: () => settled };
  }

  it('sends a fresh random state in each authorization', async () => {
    const { provider, state } = await started();
    const again = await provider.state!();
    provider.close();
    expect(state).to.match(/^[\w-]{43}$/);
    expect(again).to.not.equal(state);
  });

  it('answers a wrong or missing state 400, ignores it, and completes with the right one', async () => {
    const { provider, state, callback, settled } = await started();
    try {
      const wrong = await callback({ code: 'forged', state: 'not-it' });
      expect(wrong.status).to.equal(400);
      expect(wrong.text).to.contain('wrong or missing state');
      const missing = await callback({ code: 'forged' });
      expect(missing.status).to.equal(400);
      const error = await callback({ error: 'access_denied', state: `${state}x` });
      expect(error.status).to.equal(400);
      expect(settled()).to.equal('waiting');

      const right = await callback({ code: 'the-code', state, iss: 'https://as.example' });
      expect(right.status).to.equal(200);
      expect(await provider.authorizationResponse()).to.deep.equal({
        code: 'the-code',
        iss: 'https://as.example',
      });
      // The state served its one redirect: a replay of it is turned away.
      expect((await callback({ code: 'replayed', state })).status).to.equal(400);
      expect(await provider.authorizationResponse()).to.deep.equal({
        code: 'the-code',
        iss: 'https://as.example',
      });
    } finally {
      provider.close();
    }
  });

  it('an error the authorization server sends with the right state ends the login', async () => {
    const { provider, state, callback } = await started();
    try {
      const denied = await callback({ error: 'access_denied', state });
      expect(denied.status).to.equal(400);
      await provider.authorizationResponse().then(
        () => expect.fail('resolved'),
        (error: Error) => expect(error.message).to.contain('access_denied'),
      );
    } finally {
      provider.close();
    }
  });
});
