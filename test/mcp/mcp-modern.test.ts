/**
 * MCP 2026-07-28 served beside 2025-11-25: the SDK's v2 client negotiating each era against
 * `serveHttp` and `agenttool serve`, and raw modern requests (no initialize, no session).
 */
import { expect } from 'chai';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Observable } from 'rxjs';
import { z } from 'zod';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { rawTool, tool, type ToolEvent } from '../../index.js';
import { cliArgs, root } from '../support/cli.js';
import { ASKABLE, ENVELOPE, MODERN, postModern } from '../support/modern.js';
import { hangTool, whoAmI } from '../support/tools.js';
import { scaled } from '../support/time.js';

const steps = tool({
  name: 'steps',
  description: 'Reports three progress steps, then answers.',
  parameters: z.object({ label: z.string() }),
  async *execute({ label }) {
    for (let i = 1; i <= 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield { progress: i, total: 3, message: `${label} ${i}` };
    }
    return `${label} done`;
  },
});

const hanging = hangTool();
const hang = hanging.tool;

const ask = rawTool({
  name: 'ask',
  description: 'Asks the client a question.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      void context
        .elicit({ message: 'Go on?', schema: { type: 'object', properties: {} } })
        .then((answer) => {
          subscriber.next({ final: true, result: { output: JSON.stringify(answer) } });
          subscriber.complete();
        });
    }),
});

const TOOLS = [steps, whoAmI, hang, ask];

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]!.text;
}

describe('MCP 2026-07-28 and 2025-11-25 on one endpoint', function () {
  this.timeout(scaled(20_000));
  let http: McpHttpServer;

  beforeEach(async () => {
    http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 's', version: '1' }, TOOLS),
    });
  });
  afterEach(async () => {
    await http.close();
  });

  it('the SDK v2 client negotiates 2026-07-28, lists the tools in order and calls one with progress', async () => {
    const client = new ModernClient(
      { name: 'modern', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernHttpTransport(http.endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN);
      expect(client.getProtocolEra()).to.equal('modern');
      expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal([
        'steps',
        'who_am_i',
        'hang',
        'ask',
      ]);
      const progress: string[] = [];
      const result = await client.callTool(
        { name: 'steps', arguments: { label: 'go' } },
        { onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`) },
      );
      expect(textOf(result)).to.equal('go done');
      expect(progress).to.deep.equal(['1/3 go 1', '2/3 go 2', '3/3 go 3']);
      // No session: the era has none, and no session id was minted.
      expect(
        JSON.parse(textOf(await client.callTool({ name: 'who_am_i', arguments: {} }))),
      ).to.deep.equal({
        session: null,
      });
      expect(http.sessions).to.equal(0);
      const bad = await client.callTool({ name: 'steps', arguments: { label: 7 } });
      expect(bad.isError).to.equal(true);
      expect(textOf(bad)).to.match(/^Error: invalid arguments: /);
    } finally {
      await client.close();
    }
  });

  it('a 2025-11-25 client keeps its session on the same endpoint, and the v2 client in legacy mode too', async () => {
    const legacy = new LegacyClient({ name: 'legacy', version: '1' });
    await legacy.connect(new LegacyHttpTransport(http.endpoint));
    const pinned = new ModernClient({ name: 'pinned-legacy', version: '1' });
    await pinned.connect(new ModernHttpTransport(http.endpoint));
    try {
      expect(legacy.getServerVersion()?.name).to.equal('s');
      expect(pinned.getProtocolEra()).to.equal('legacy');
      const session = JSON.parse(
        textOf(await legacy.callTool({ name: 'who_am_i', arguments: {} })),
      ) as {
        session: { id: string; client: { name: string } };
      };
      expect(session.session.client.name).to.equal('legacy');
      expect(
        textOf(await pinned.callTool({ name: 'steps', arguments: { label: 'old' } })),
      ).to.equal('old done');
      expect(http.sessions).to.equal(2);
    } finally {
      await legacy.close();
      await pinned.close();
    }
  });

  it('answers server/discover and a sessionless call, each result with resultType "complete"', async () => {
    const discover = await postModern(http.url, 'server/discover', {});
    expect(discover.status).to.equal(200);
    const found = discover.body.result as Record<string, unknown>;
    expect(found.supportedVersions).to.include(MODERN);
    expect(found.capabilities).to.deep.equal({ tools: {} });
    expect(found.resultType).to.equal('complete');

    const call = await postModern(http.url, 'tools/call', {
      name: 'steps',
      arguments: { label: 'raw' },
    });
    expect(call.status).to.equal(200);
    const result = call.body.result as Record<string, unknown>;
    expect(result.resultType).to.equal('complete');
    expect(textOf(result)).to.equal('raw done');

    const list = await postModern(http.url, 'tools/list', {});
    const listed = list.body.result as {
      tools: { name: string }[];
      ttlMs: number;
      cacheScope: string;
    };
    expect(listed.tools.map((t) => t.name)).to.deep.equal(['steps', 'who_am_i', 'hang', 'ask']);
    expect(listed.ttlMs).to.equal(0);
    expect(listed.cacheScope).to.equal('private');
  });

  it('refuses a request whose Mcp-Name disagrees with its body (-32020), running nothing', async () => {
    let ran = false;
    void hanging.watch().started.then(() => (ran = true));
    const { status, body } = await postModern(
      http.url,
      'tools/call',
      { name: 'hang', arguments: {} },
      { 'mcp-name': 'steps' },
    );
    expect(status).to.equal(400);
    expect((body.error as { code: number }).code).to.equal(-32020);
    expect(ran).to.equal(false);
  });

  it('refuses a modern request without the MCP-Protocol-Version header', async () => {
    const response = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/list',
        params: { _meta: ENVELOPE },
      }),
    });
    expect(response.status).to.equal(400);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).to.equal(-32020);
    expect(body.error.message).to.include('MCP-Protocol-Version');
  });

  it('cancels the call when the client closes the response stream', async () => {
    const { started: running, cancelled } = hanging.watch();
    const abort = new AbortController();
    const posted = fetch(http.url, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'hang',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'hang', arguments: {}, _meta: ENVELOPE },
      }),
    }).catch(() => undefined);
    await running;
    expect(http.activeCalls).to.equal(1);
    abort.abort();
    await cancelled;
    await posted;
    // The call's slot is given back.
    for (let i = 0; i < 50 && http.activeCalls > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(http.activeCalls).to.equal(0);
  });

  it("declines a tool's question at once when the client did not declare elicitation", async () => {
    const { body } = await postModern(http.url, 'tools/call', { name: 'ask', arguments: {} });
    expect(JSON.parse(textOf(body.result))).to.deep.equal({ action: 'decline' });
  });

  it('applies the access rules to modern requests: no token, 401', async () => {
    await http.close();
    http = await serveHttp({
      port: 0,
      token: 'sesame',
      factory: () => createMcpServer({ name: 's', version: '1' }, TOOLS),
    });
    const refused = await postModern(http.url, 'tools/list', {});
    expect(refused.status).to.equal(401);
    const served = await postModern(http.url, 'tools/list', {}, { authorization: 'Bearer sesame' });
    expect(served.status).to.equal(200);
  });
});

describe('agenttool serve: MCP 2026-07-28 over stdio', function () {
  this.timeout(scaled(30_000));

  it('the SDK v2 client negotiates 2026-07-28 over stdio and calls a bundled tool', async () => {
    const [command, ...args] = [process.execPath, ...cliArgs(), 'serve'];
    const client = new ModernClient(
      { name: 'modern-stdio', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new ModernStdioTransport({ command: command!, args, cwd: root, stderr: 'ignore' }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).to.include('list_dir');
      const result = await client.callTool({ name: 'list_dir', arguments: { path: 'examples' } });
      expect(textOf(result)).to.include('turn.json');
    } finally {
      await client.close();
    }
  });

  it('asks a client that declared elicitation on its request (ask_user): one server serves every request, each with its own capabilities', async () => {
    const [command, ...args] = [process.execPath, ...cliArgs(), 'serve'];
    const client = new ModernClient(
      { name: 'modern-stdio', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer: 'blue' } };
    });
    await client.connect(
      new ModernStdioTransport({ command: command!, args, cwd: root, stderr: 'ignore' }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN);
      const result = await client.callTool({
        name: 'ask_user',
        arguments: { question: 'Which colour?' },
      });
      // Before: the Server's capabilities were the initialize-era ones (none), so it declined.
      expect(asked).to.deep.equal(['Which colour?']);
      expect(textOf(result)).to.equal('the user answered: blue');
    } finally {
      await client.close();
    }
  });
});

describe('createMcpServer requiredCapabilities: a tool that needs a client capability', function () {
  this.timeout(scaled(20_000));
  let http: McpHttpServer;
  const needy = tool({
    name: 'needy',
    description: 'Needs a client that answers form questions.',
    parameters: z.object({}),
    execute: () => 'ran',
  });
  before(async () => {
    http = await serveHttp({
      port: 0,
      factory: () =>
        createMcpServer({ name: 'needs', version: '1' }, [needy, whoAmI], {
          requiredCapabilities: { needy: { elicitation: { form: {} } } },
        }),
    });
  });
  after(() => http.close());

  it('refuses a 2026-07-28 client that did not declare it: HTTP 400, -32021 naming what is missing', async () => {
    const { status, body } = await postModern(http.url, 'tools/call', { name: 'needy' });
    expect(status).to.equal(400);
    const error = body.error as { code: number; message: string; data: unknown };
    expect(error.code).to.equal(-32021);
    expect(error.data).to.deep.equal({ requiredCapabilities: { elicitation: { form: {} } } });
    expect(error.message).to.contain('tool "needy" needs the client capabilities');
  });

  it('runs the call of a client that declared it, and every other tool for anyone', async () => {
    const asked = await postModern(http.url, 'tools/call', { name: 'needy' }, {}, ASKABLE);
    expect(asked.status).to.equal(200);
    expect((asked.body.result as { content: { text: string }[] }).content[0]!.text).to.equal('ran');
    const other = await postModern(http.url, 'tools/call', { name: 'who_am_i' });
    expect(other.status).to.equal(200);
  });

  it('refuses a 2025-11-25 client that did not declare it with the same error', async () => {
    const client = new LegacyClient({ name: 'legacy', version: '1' });
    await client.connect(new LegacyHttpTransport(http.endpoint));
    try {
      const refused = await client.callTool({ name: 'needy', arguments: {} }).then(
        () => undefined,
        (err: unknown) => err as { code?: number; message: string },
      );
      expect(refused?.code).to.equal(-32021);
      expect(refused?.message).to.contain('did not declare');
    } finally {
      await client.close();
    }
  });
});
