/**
 * `agenttool/mcp/client` in Chromium under a strict Content Security Policy (`script-src 'self'`:
 * no eval, no `new Function`), against a server of the SDK's v2 line whose tool has an
 * `outputSchema`: the page connects, lists, runs a call through `executeBatch` and checks its
 * structured result, in both eras. The SDK's validator for a browser (`@cfworker/json-schema`,
 * chosen by the `browser` export condition) compiles nothing with eval.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { browserBuild } from '../support/bundle.js';
import { launchChromium, type TestBrowser } from '../support/ui.js';
import { scaled } from '../support/time.js';

/** The page's script: connects, calls `measure`, and says what came back, or what failed. */
const PAGE_SCRIPT = `
import { connectMcp, httpTransport } from './adapters/mcp-client/index.js';
import { executeBatch } from './browser.js';
import { lastValueFrom, toArray } from 'rxjs';

async function run(mode) {
  const remote = await connectMcp(httpTransport(location.origin + '/mcp'), {
    versionNegotiation: { mode },
  });
  try {
    const measure = remote.tools.find((t) => t.name === 'measure');
    const events = await lastValueFrom(
      executeBatch([{ tool: measure, call: { id: 'm', args: '{"word":"csp"}' } }]).pipe(toArray()),
    );
    const final = events.at(-1);
    return {
      version: remote.protocolVersion,
      outputSchema: measure.remote.outputSchema !== undefined,
      error: final.error?.message ?? null,
      structured: final.result?.details?.structuredContent ?? null,
    };
  } finally {
    await remote.close();
  }
}

let evalBlocked = false;
try { new Function('return 1')(); } catch { evalBlocked = true; }
Promise.all([run('auto'), run('legacy')]).then(
  (results) => { window.__result = { evalBlocked, results }; },
  (error) => { window.__result = { evalBlocked, failure: String(error && error.stack || error) }; },
);
`;

const CSP = "default-src 'self'; script-src 'self'";

describe('agenttool/mcp/client in Chromium under script-src self', function () {
  this.timeout(scaled(120_000));
  let server: Server;
  let browser: TestBrowser;
  let origin: string;

  before(async () => {
    const built = await browserBuild(PAGE_SCRIPT);
    const script = built.outputFiles![0]!.contents;
    const factory = () => {
      const mcp = new McpServer({ name: 'typed-results', version: '1' });
      mcp.registerTool(
        'measure',
        {
          description: 'Measures a word.',
          inputSchema: z.object({ word: z.string() }),
          outputSchema: z.object({ word: z.string(), length: z.number().int() }),
        },
        ({ word }) => ({
          content: [{ type: 'text', text: `${word}: ${word.length}` }],
          structuredContent: { word, length: word.length },
        }),
      );
      return mcp;
    };
    const mcp = toNodeHandler(createMcpHandler(factory));
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/mcp') return void mcp(req, res);
      if (path === '/page.js') {
        res.writeHead(200, { 'content-type': 'text/javascript', 'content-security-policy': CSP });
        return void res.end(script);
      }
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': CSP });
      res.end('<!doctype html><title>csp</title><script type="module" src="/page.js"></script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('connects, lists a tool with an outputSchema and gets its structured result, eval blocked', async () => {
    const page = await browser.context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|unsafe-eval/i.test(message.text()))
        violations.push(message.text());
    });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as { __result?: unknown }).__result !== undefined);
    const result = await page.evaluate(() => (window as { __result?: unknown }).__result);
    expect(result).to.deep.equal({
      evalBlocked: true,
      results: ['2026-07-28', '2025-11-25'].map((version) => ({
        version,
        outputSchema: true,
        error: null,
        structured: { word: 'csp', length: 3 },
      })),
    });
    // The page's own probe of eval is the only refusal.
    expect(violations.length).to.be.at.most(1);
  });
});
