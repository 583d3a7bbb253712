/**
 * `--auth`: OAuth to an `--mcp-url` server that asks for it, the way a command-line program does
 * it. The person opens the authorization page (its URL on stderr; `$BROWSER`, when set, is
 * started with it), the authorization server sends the browser back to a loopback address this
 * process listens on, and the code it brings finishes the flow. The client registration and the
 * tokens are kept, per server URL, in a file only its user can read, so a later run goes on
 * without a browser until the tokens cannot be refreshed. Each authorization URL carries a fresh
 * random `state`, and the loopback address takes only a redirect that brings it back: any other
 * page (another program on the machine, a stale or forged link) is answered 400 and the login
 * goes on waiting.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AuthorizationResponse, McpOAuthProvider } from '../adapters/mcp-client/index.js';

/** What is kept for one server. */
interface Kept {
  port?: number;
  client?: unknown;
  tokens?: unknown;
}

/** Where the registrations and tokens are kept: `AGENTTOOL_OAUTH_FILE`, or the user's config. */
export function oauthFile(): string {
  const given = process.env.AGENTTOOL_OAUTH_FILE;
  if (given !== undefined && given !== '') return given;
  const config = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(config, 'agenttool', 'oauth.json');
}

function readAll(file: string): Record<string, Kept> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, Kept>) : {};
  } catch {
    return {};
  }
}

/** Writes `server`'s entry, the file readable and writable by its user alone (0600, folder 0700). */
function keep(file: string, server: string, entry: Kept): void {
  const all = readAll(file);
  all[server] = entry;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** Whether `given` is the `state` sent (compared in constant time: it is a secret). */
function sameState(given: string | null, sent: string | undefined): boolean {
  if (given === null || sent === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Listens on loopback (`port`, or any free one when it is taken); resolves once listening. */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (port !== 0 && err.code === 'EADDRINUSE') {
        server.listen(0, '127.0.0.1');
        return;
      }
      reject(err);
    };
    server.on('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The authorization this process waits for: its `state`, and who its redirect is given to. */
interface Waiting {
  state?: string | undefined;
  answer?: ((response: AuthorizationResponse) => void) | undefined;
  refuse?: ((error: Error) => void) | undefined;
}

/**
 * The loopback server the authorization server sends the browser back to: a redirect that brings
 * back `waiting`'s state gives its code (or its error) to `waiting`.
 */
function callbackServer(waiting: Waiting): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const text = (status: number, body: string): void =>
      void res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    if (!sameState(url.searchParams.get('state'), waiting.state)) {
      // Not the redirect of the authorization this process started: ignored, still waiting.
      text(400, 'not the authorization agenttool is waiting for (wrong or missing state)\n');
      return;
    }
    waiting.state = undefined; // a state is good for one redirect
    const code = url.searchParams.get('code');
    const iss = url.searchParams.get('iss');
    const error = url.searchParams.get('error');
    if (code === null) {
      text(400, `authorization failed: ${error ?? 'no code'}\n`);
      waiting.refuse?.(
        new Error(`oauth: the authorization server answered ${error ?? 'without a code'}`),
      );
      return;
    }
    text(200, 'agenttool is authorized; you can close this page.\n');
    waiting.answer?.(iss === null ? { code } : { code, iss });
  });
}

/**
 * The provider `--auth` gives `oauth()` for the server at `serverUrl`: a loopback redirect, the
 * page's URL told through `tell`, what the server grants kept in {@link oauthFile}. Resolves once
 * its loopback address listens; `close()` stops listening.
 */
export async function loginProvider(
  serverUrl: string,
  tell: (line: string) => void,
): Promise<McpOAuthProvider & { close(): void }> {
  const file = oauthFile();
  let kept: Kept = readAll(file)[serverUrl] ?? {};
  let verifier: string | undefined;
  const waiting: Waiting = {};
  let response: Promise<AuthorizationResponse> | undefined;
  const server = callbackServer(waiting);
  server.unref();
  const port = await listen(server, kept.port ?? 0);
  if (port !== kept.port) {
    // A new address is a new redirect URI: the old registration does not have it.
    kept = { port };
    keep(file, serverUrl, kept);
  }
  const redirectUrl = `http://127.0.0.1:${port}/callback`;
  const save = (change: Partial<Kept>): void => {
    kept = { ...kept, ...change };
    keep(file, serverUrl, kept);
  };
  return {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return {
        client_name: 'agenttool',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => kept.client as never,
    saveClientInformation: (client) => save({ client }),
    tokens: () => kept.tokens as never,
    saveTokens: (tokens) => save({ tokens }),
    state: () => (waiting.state = randomBytes(32).toString('base64url')),
    saveCodeVerifier: (saved) => void (verifier = saved),
    codeVerifier: () => {
      if (verifier === undefined) throw new Error('oauth: no PKCE code verifier was saved');
      return verifier;
    },
    invalidateCredentials: (scope) => {
      if (scope === 'all') save({ client: undefined, tokens: undefined });
      else if (scope === 'client') save({ client: undefined });
      else if (scope === 'tokens') save({ tokens: undefined });
      if (scope === 'all' || scope === 'verifier') verifier = undefined;
    },
    redirectToAuthorization: (url) => {
      response = new Promise((resolve, reject) => {
        waiting.answer = resolve;
        waiting.refuse = reject;
      });
      server.ref(); // waiting for the person keeps the process alive
      void response.finally(() => server.unref()).catch(() => undefined);
      tell(`agenttool: ${serverUrl} asks for authorization: open ${url.href}`);
      const browser = process.env.BROWSER;
      if (browser !== undefined && browser !== '')
        spawn(browser, [url.href], { stdio: 'ignore', detached: true })
          .on('error', () => undefined)
          .unref();
    },
    authorizationResponse: () =>
      response ?? Promise.reject(new Error('oauth: no authorization was started')),
    close: () => server.close(),
  };
}
