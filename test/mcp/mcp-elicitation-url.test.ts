/**
 * URL questions over MCP, both ways and in both eras: a served tool's page reaches a client that
 * declared URL mode (with an `elicitationId` before 2026-07-28, without one after), is declined
 * unsent for a client of forms only, and `connectMcp` with `urlElicitation` hands a server's page
 * to the calling job's elicitor; a hostile URL is declined unseen; a server that refuses a call
 * until a page is visited (-32042) gets it asked, and the call is sent again.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitRequestSchema,
  ListToolsRequestSchema,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import {
  connectMcp,
  type McpClientOptions,
  type McpRemote,
} from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import {
  executeBatch,
  tool,
  type ElicitRequest,
  type ElicitResult,
  type Elicitor,
  type ExecutionEvent,
  type Tool,
} from '../../index.js';
import { MODERN } from '../support/modern.js';
import { scaled } from '../support/time.js';

const PAGE = {
  mode: 'url',
  message: 'Connect your calendar.',
  url: 'https://calendar.example.com/connect?session=7',
} as const satisfies ElicitRequest;

const FORM: ElicitRequest = {
  message: 'Which calendar?',
  schema: { type: 'object', properties: { name: { type: 'string' } } },
};

/** Asks the page, then a form, and answers with both answers. */
const connect = tool({
  name: 'connect',
  description: 'Sends the person to the calendar’s page, then asks which calendar.',
  execute: async (_args, context) =>
    JSON.stringify([await context.elicit(PAGE), await context.elicit(FORM)]),
});

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content.map((c) => c.text ?? '').join('');
}

/** Runs one call of `remote tool` with `elicitor`; the batch's events. */
function run(remoteTool: Tool, elicitor?: Elicitor): Promise<ExecutionEvent[]> {
  return lastValueFrom(
    executeBatch(
      [{ tool: remoteTool, call: { id: 'c1', args: '{}' } }],
      elicitor === undefined ? {} : { elicitor },
    ).pipe(toArray()),
  );
}

/** The elicitor of a person who goes to every page and answers every form with `name: "work"`. */
function person(asked: ElicitRequest[]): Elicitor {
  return (request): ElicitResult => {
    asked.push(request);
    return request.mode === 'url'
      ? { action: 'accept', content: {} }
      : { action: 'accept', content: { name: 'work' } };
  };
}

const BOTH = [
  { action: 'accept', content: {} },
  { action: 'accept', content: { name: 'work' } },
];

describe('MCP server: a tool’s URL question (2025-11-25, initialize)', () => {
  /** createMcpServer of `connect` and an SDK v1 client declaring `elicitation`. */
  async function connectV1(elicitation: Record<string, unknown>, seen: unknown[]) {
    const server = createMcpServer({ name: 'asks', version: '1' }, [connect]);
    const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      seen.push(request.params);
      return request.params.mode === 'url'
        ? { action: 'accept' }
        : { action: 'accept', content: { name: 'work' } };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    return { client, close: () => Promise.all([client.close(), server.close()]) };
  }

  it('sends mode, message, url and a fresh elicitationId to a client that declared URL mode', async () => {
    const seen: Record<string, unknown>[] = [];
    const { client, close } = await connectV1({ form: {}, url: {} }, seen);
    try {
      const result = await client.callTool({ name: 'connect', arguments: {} });
      expect(JSON.parse(textOf(result))).to.deep.equal(BOTH);
      const { elicitationId, _meta: _, ...rest } = seen[0]!;
      expect(rest).to.deep.equal(PAGE);
      expect(elicitationId)
        .to.be.a('string')
        .and.match(/^[0-9a-f-]{36}$/);
      expect(seen[1]).to.include({ mode: 'form', message: 'Which calendar?' });
    } finally {
      await close();
    }
  });

  it('declines the page at once, never sending it, to a client of forms only; the form is still asked', async () => {
    const seen: Record<string, unknown>[] = [];
    const { client, close } = await connectV1({}, seen);
    try {
      const result = await client.callTool({ name: 'connect', arguments: {} });
      expect(JSON.parse(textOf(result))).to.deep.equal([
        { action: 'decline' },
        { action: 'accept', content: { name: 'work' } },
      ]);
      expect(seen.map((p) => p.message)).to.deep.equal(['Which calendar?']);
    } finally {
      await close();
    }
  });

  it('asks a client of pages only the page, and declines the form', async () => {
    const seen: Record<string, unknown>[] = [];
    const { client, close } = await connectV1({ url: {} }, seen);
    try {
      const result = await client.callTool({ name: 'connect', arguments: {} });
      expect(JSON.parse(textOf(result))).to.deep.equal([
        { action: 'accept', content: {} },
        { action: 'decline' },
      ]);
      expect(seen.map((p) => p.mode)).to.deep.equal(['url']);
    } finally {
      await close();
    }
  });
});

describe('MCP server: a tool’s URL question (2026-07-28, held calls)', function () {
  this.timeout(scaled(20_000));
  let http: McpHttpServer;
  before(async () => {
    http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'asks', version: '1' }, [connect]),
    });
  });
  after(() => http.close());

  async function callModern(
    elicitation: { form?: Record<string, never>; url?: Record<string, never> },
    seen: unknown[],
  ) {
    const client = new ModernClient(
      { name: 'modern', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation } },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      seen.push(request.params);
      return request.params.mode === 'url'
        ? { action: 'accept' }
        : { action: 'accept', content: { name: 'work' } };
    });
    await client.connect(new ModernHttpTransport(http.endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal(MODERN);
      return JSON.parse(textOf(await client.callTool({ name: 'connect', arguments: {} })));
    } finally {
      await client.close();
    }
  }

  it('puts the page in inputRequests as mode, message and url, and the retry carries the call on', async () => {
    const seen: Record<string, unknown>[] = [];
    expect(await callModern({ form: {}, url: {} }, seen)).to.deep.equal(BOTH);
    const { _meta: _, ...page } = seen[0]!;
    expect(page).to.deep.equal(PAGE);
  });

  it('declines the page at once to a modern client of forms only', async () => {
    const seen: Record<string, unknown>[] = [];
    expect(await callModern({ form: {} }, seen)).to.deep.equal([
      { action: 'decline' },
      { action: 'accept', content: { name: 'work' } },
    ]);
    expect(seen.map((p) => p.message)).to.deep.equal(['Which calendar?']);
  });
});

describe('connectMcp: a server’s URL question', function () {
  this.timeout(scaled(20_000));
  const open: McpRemote[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((remote) => remote.close()));
  });

  async function overMemory(options: McpClientOptions) {
    const server = createMcpServer({ name: 'asks', version: '1' }, [connect]);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const remote = await connectMcp(b, options);
    open.push(remote);
    return remote;
  }

  it('with urlElicitation, reaches the calling job’s elicitor as { mode, message, url }', async () => {
    const remote = await overMemory({ urlElicitation: true });
    const asked: ElicitRequest[] = [];
    const events = await run(remote.tools[0]!, person(asked));
    expect(asked).to.deep.equal([PAGE, FORM]);
    expect(JSON.parse(String(events.at(-1)?.result?.output))).to.deep.equal(BOTH);
    // The page shows on the call in the batch's events, as a form does.
    const shown = events.flatMap((e) => (e.question === undefined ? [] : [e.question.mode]));
    expect(shown).to.deep.equal(['url', 'url', undefined, undefined]);
  });

  it('with urlElicitation over MCP 2026-07-28 HTTP, the same', async () => {
    const http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'asks', version: '1' }, [connect]),
    });
    try {
      const remote = await connectMcp(new ModernHttpTransport(http.endpoint), {
        urlElicitation: true,
      });
      open.push(remote);
      const asked: ElicitRequest[] = [];
      const events = await run(remote.tools[0]!, person(asked));
      // In 2026-07-28 each question carries the key the server gave it in inputRequests.
      expect(asked).to.deep.equal([
        { ...PAGE, key: 'q1' },
        { ...FORM, key: 'q2' },
      ]);
      expect(JSON.parse(String(events.at(-1)?.result?.output))).to.deep.equal(BOTH);
    } finally {
      await Promise.all(open.splice(0).map((remote) => remote.close()));
      await http.close();
    }
  });

  it('without urlElicitation, declares forms only: the page is never sent, the person never asked', async () => {
    const remote = await overMemory({});
    const asked: ElicitRequest[] = [];
    const events = await run(remote.tools[0]!, person(asked));
    expect(asked).to.deep.equal([FORM]);
    expect(JSON.parse(String(events.at(-1)?.result?.output))).to.deep.equal([
      { action: 'decline' },
      { action: 'accept', content: { name: 'work' } },
    ]);
  });

  /** A third-party server (SDK v1) whose `visit` tool asks for the page at `url`. */
  async function thirdParty(
    handle: (server: Server, url: string) => Promise<unknown>,
    options: McpClientOptions = { urlElicitation: true },
  ) {
    const server = new Server({ name: 'third', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'visit',
          description: 'Needs a page visited.',
          inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { url } = request.params.arguments as { url: string };
      return { content: [{ type: 'text', text: JSON.stringify(await handle(server, url)) }] };
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const errors: string[] = [];
    const remote = await connectMcp(b, { ...options, onerror: (e) => errors.push(e.message) });
    open.push(remote);
    const call = (url: string, elicitor: Elicitor) =>
      lastValueFrom(
        executeBatch(
          [{ tool: remote.tools[0]!, call: { id: 'v', args: JSON.stringify({ url }) } }],
          { elicitor },
        ).pipe(toArray()),
      ).then((events) => events.at(-1)!);
    return { call, errors };
  }

  it('declines a page whose URL is javascript:, unseen, and says so through onerror', async () => {
    const { call, errors } = await thirdParty((server, url) =>
      server.elicitInput({ mode: 'url', message: 'Look', url, elicitationId: 'e1' }),
    );
    const asked: ElicitRequest[] = [];
    const last = await call('javascript:alert(document.cookie)', person(asked));
    expect(JSON.parse(String(last.result?.output))).to.deep.equal({ action: 'decline' });
    expect(asked).to.deep.equal([]);
    expect(errors).to.deep.equal([
      'mcp: a URL question was declined unseen: the url must be http: or https:, not javascript:',
    ]);
  });

  it('sends the accept of a page with no content, whatever the elicitor put in it', async () => {
    const { call } = await thirdParty((server, url) =>
      server.elicitInput({ mode: 'url', message: 'Look', url, elicitationId: 'e1' }),
    );
    const last = await call('https://example.com/look', () => ({
      action: 'accept',
      content: { secret: 'leaked?' },
    }));
    expect(JSON.parse(String(last.result?.output))).to.deep.equal({ action: 'accept' });
  });

  describe('a call refused until a page is visited (-32042)', () => {
    let calls = 0;
    const gate = (_server: Server, url: string): Promise<unknown> => {
      calls++;
      if (calls === 1)
        throw new UrlElicitationRequiredError([
          { mode: 'url', message: 'Authorize the calendar first.', url, elicitationId: 'g1' },
        ]);
      return Promise.resolve(`went through on call ${calls}`);
    };
    beforeEach(() => {
      calls = 0;
    });

    it('asks the page through the call, then sends the call again, once', async () => {
      const { call } = await thirdParty(gate);
      const asked: ElicitRequest[] = [];
      const last = await call('https://calendar.example.com/authorize', person(asked));
      expect(asked).to.deep.equal([
        {
          mode: 'url',
          message: 'Authorize the calendar first.',
          url: 'https://calendar.example.com/authorize',
        },
      ]);
      expect(last.result?.output).to.equal('"went through on call 2"');
      expect(calls).to.equal(2);
    });

    it('fails the call, naming the page, when the person declines it; nothing is sent again', async () => {
      const { call } = await thirdParty(gate);
      const last = await call('https://calendar.example.com/authorize', () => ({
        action: 'decline',
      }));
      expect(last.error?.message).to.match(
        /^mcp: call "visit": the server needs https:\/\/calendar\.example\.com\/authorize visited first \(declined\): MCP error -32042: /,
      );
      expect(calls).to.equal(1);
    });

    it('gives up after 3 rounds of a server that keeps refusing', async () => {
      const { call } = await thirdParty((_server, url) => {
        calls++;
        throw new UrlElicitationRequiredError([
          { mode: 'url', message: 'Again.', url, elicitationId: `g${calls}` },
        ]);
      });
      const asked: ElicitRequest[] = [];
      const last = await call('https://calendar.example.com/authorize', person(asked));
      expect(asked).to.have.length(3);
      expect(calls).to.equal(4);
      expect(last.error?.message).to.match(/-32042/);
    });

    it('without urlElicitation, fails the call with the server’s error, asking nobody', async () => {
      const { call } = await thirdParty(gate, {});
      const asked: ElicitRequest[] = [];
      const last = await call('https://calendar.example.com/authorize', person(asked));
      expect(asked).to.deep.equal([]);
      expect(last.error?.message).to.match(/-32042/);
      expect(calls).to.equal(1);
    });
  });
});
