/**
 * A proxy (`createMcpServer` over `connectMcp`'s tools) changes nothing its client sees: an
 * upstream's log messages during a call reach the client as log messages, filtered by the level
 * it asked for, and its progress as the very same numbers, never a log turned into progress.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { InMemoryTransport as ModernInMemory } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import { connectMcp, httpTransport, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp } from '../../adapters/mcp-server/index.js';
import { BehaviorSubject } from 'rxjs';
import { rawTool, type Tool } from '../../index.js';
import { overHttp } from '../support/sdk-peers.js';
import { scaled } from '../support/time.js';

/** A tool named `name` that answers its name. */
const named = (name: string): Tool =>
  rawTool({
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    execute: () => ({ output: name }),
  });

/**
 * An upstream whose `work` reports progress 1, logs, reports 2, logs at debug, then answers: its
 * log messages are the request's (sent on its HTTP response stream, as the SDKs' request-scoped
 * logging sends them), which is how connectMcp knows they are the call's.
 */
function upstream(): Server {
  const server = new Server(
    { name: 'upstream', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'work', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    const progress = (value: number) =>
      extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token!, progress: value, total: 2 },
      });
    const log = (params: { level: 'info' | 'debug'; logger?: string; data: unknown }) =>
      extra.sendNotification({ method: 'notifications/message', params });
    await progress(1);
    await log({ level: 'info', logger: 'build', data: 'compiled' });
    await progress(2);
    await log({ level: 'debug', data: { detail: 'linked' } });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

async function linked(connect: (t: InMemoryTransport) => Promise<void>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  return clientSide;
}

describe('the proxy changes nothing: log messages', function () {
  this.timeout(scaled(10_000));
  let remote: McpRemote;
  let client: Client;
  let served: { url: string; close(): Promise<void> };
  const logs: unknown[] = [];

  beforeEach(async () => {
    logs.length = 0;
    served = await overHttp(upstream());
    remote = await connectMcp(httpTransport(served.url), {
      versionNegotiation: { mode: 'legacy' },
    });
    const proxy = createMcpServer({ name: 'proxy', version: '1' }, remote.tools);
    client = new Client({ name: 'downstream', version: '1' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      // As the wire carries it: JSON.
      logs.push(JSON.parse(JSON.stringify(n.params)));
    });
    await client.connect(await linked((t) => proxy.connect(t)));
  });
  afterEach(async () => {
    await client.close();
    await remote.close();
    await served.close();
  });

  it('declares logging, passes logs as logs at the level asked, and progress as the same numbers', async () => {
    expect(client.getServerCapabilities()?.logging).to.deep.equal({});
    await client.setLoggingLevel('info');
    const progress: { progress: number; total?: number }[] = [];
    const result = await client.callTool({ name: 'work', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push({ progress: p.progress, total: p.total }),
    });
    expect((result.content as { text: string }[])[0]!.text).to.equal('done');
    expect(progress).to.deep.equal([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    // The debug message is below the level asked for.
    expect(logs).to.deep.equal([{ level: 'info', logger: 'build', data: 'compiled' }]);
  });

  it('at debug, every message, its data as the upstream sent it', async () => {
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'work', arguments: {} });
    expect(logs).to.deep.equal([
      { level: 'info', logger: 'build', data: 'compiled' },
      { level: 'debug', data: { detail: 'linked' } },
    ]);
  });
});

/** An upstream whose `ask` asks for a number and answers with what it got, as it got it. */
function askingUpstream(): Server {
  const server = new Server({ name: 'asking', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'ask', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    const answer = await server.elicitInput({
      message: 'How many?',
      requestedSchema: {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1 } },
        required: ['count'],
      },
    });
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  });
  return server;
}

describe("the proxy changes nothing: a person's answer to an upstream question", function () {
  this.timeout(scaled(10_000));

  it('goes to the server that asked as given, even when it does not fit: that server judges it', async () => {
    const remote = await connectMcp(await linked((t) => askingUpstream().connect(t)), {
      versionNegotiation: { mode: 'legacy' },
    });
    const proxy = createMcpServer({ name: 'proxy', version: '1' }, remote.tools);
    // The SDK's v2 client passes its handler's answer on without checking it against the schema.
    const client = new ModernClient(
      { name: 'downstream', version: '1' },
      { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { count: 'lots' },
    }));
    const [clientSide, serverSide] = ModernInMemory.createLinkedPair();
    await proxy.connect(serverSide);
    await client.connect(clientSide);
    try {
      // The upstream got the answer as given and judged it itself (the SDK's server checks it);
      // before, the proxy checked it first and the upstream got `cancel`. Its refusal, a
      // JSON-RPC error, reaches the client as that error, as it would directly.
      const refused = await client.callTool({ name: 'ask', arguments: {} }).then(
        () => undefined,
        (err: unknown) => err as { code?: unknown; message: string },
      );
      expect(refused?.message).to.match(
        /Elicitation response content does not match requested schema: data\/count must be integer/,
      );
      expect(refused?.code).to.equal(-32602);
    } finally {
      await client.close();
      await remote.close();
    }
  });
});

describe('the proxy changes nothing: list changes', function () {
  this.timeout(scaled(10_000));

  it('serving remote.tools$, it declares listChanged and tells its client when the upstream list changes', async () => {
    let names = ['first'];
    const upstream = new Server(
      { name: 'changing', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    upstream.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: names.map((name) => ({ name, inputSchema: { type: 'object' as const } })),
    }));
    upstream.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [{ type: 'text', text: `ran ${request.params.name}` }],
    }));
    const remote = await connectMcp(await linked((t) => upstream.connect(t)), {
      versionNegotiation: { mode: 'legacy' },
    });
    const proxy = createMcpServer({ name: 'proxy', version: '1' }, remote.tools$);
    const client = new Client({ name: 'downstream', version: '1' });
    let told!: () => void;
    const changed = new Promise<void>((resolve) => (told = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => told());
    await client.connect(await linked((t) => proxy.connect(t)));
    try {
      expect(client.getServerCapabilities()?.tools).to.deep.equal({ listChanged: true });
      expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal(['first']);
      names = ['first', 'second'];
      await upstream.sendToolListChanged();
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal([
        'first',
        'second',
      ]);
      const result = await client.callTool({ name: 'second', arguments: {} });
      expect((result.content as { text: string }[])[0]!.text).to.equal('ran second');
    } finally {
      await client.close();
      await remote.close();
    }
  });
});

describe('the proxy changes nothing: list changes in MCP 2026-07-28 (subscriptions/listen)', function () {
  this.timeout(scaled(10_000));

  it('serveHttp of a live list tells each listening client when the list changes', async () => {
    const tools = new BehaviorSubject<Tool[]>([named('first')]);
    const http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'live', version: '1' }, tools),
    });
    const client = new ModernClient(
      { name: 'downstream', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    let told = 0;
    let changed!: () => void;
    let next = new Promise<void>((resolve) => (changed = resolve));
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      told++;
      changed();
    });
    await client.connect(new ModernHttpTransport(http.endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal('2026-07-28');
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).to.deep.equal({ toolsListChanged: true });
      tools.next([named('first'), named('second')]);
      await next;
      expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal([
        'first',
        'second',
      ]);
      next = new Promise<void>((resolve) => (changed = resolve));
      tools.next([named('second')]);
      await next;
      expect(told).to.equal(2);
      expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal(['second']);
      await subscription.close();
      expect(await subscription.closed).to.equal('local');
    } finally {
      await client.close();
      await http.close();
    }
  });

  it('a server of a fixed list honors no list changes', async () => {
    const http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'fixed', version: '1' }, [named('only')]),
    });
    const client = new ModernClient(
      { name: 'downstream', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernHttpTransport(http.endpoint));
    try {
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).to.deep.equal({});
    } finally {
      await client.close();
      await http.close();
    }
  });
});

/** An upstream whose `pick` asks for a colour with a default, and answers with what it got. */
function defaultingUpstream(): Server {
  const server = new Server(
    { name: 'defaulting', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'pick', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    const answer = await server.elicitInput({
      message: 'Which colour?',
      requestedSchema: {
        type: 'object',
        properties: { colour: { type: 'string', default: 'blue' } },
      },
    });
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  });
  return server;
}

describe('the proxy changes nothing: a schema default', function () {
  this.timeout(scaled(10_000));

  it("is filled into its own person's answer by connectMcp, and not into an answer it relays", async () => {
    // Direct: the executor's person accepts the form as it stands; connectMcp fills the default.
    const direct = await connectMcp(await linked((t) => defaultingUpstream().connect(t)), {
      versionNegotiation: { mode: 'legacy' },
    });
    const { lastValueFrom, toArray } = await import('rxjs');
    const { executeBatch } = await import('../../index.js');
    const events = await lastValueFrom(
      executeBatch([{ tool: direct.tools[0]!, call: { id: 'c', args: '{}' } }], {
        elicitor: () => ({ action: 'accept', content: {} }),
      }).pipe(toArray()),
    );
    expect(JSON.parse(String(events.at(-1)!.result!.output))).to.deep.equal({
      action: 'accept',
      content: { colour: 'blue' },
    });
    await direct.close();

    // Through the proxy: the downstream's answer goes up as it gave it.
    const remote = await connectMcp(await linked((t) => defaultingUpstream().connect(t)), {
      versionNegotiation: { mode: 'legacy' },
    });
    const proxy = createMcpServer({ name: 'proxy', version: '1' }, remote.tools);
    const client = new ModernClient(
      { name: 'downstream', version: '1' },
      { versionNegotiation: { mode: 'legacy' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: {} }));
    const [clientSide, serverSide] = ModernInMemory.createLinkedPair();
    await proxy.connect(serverSide);
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'pick', arguments: {} });
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).to.deep.equal({
        action: 'accept',
        content: {},
      });
    } finally {
      await client.close();
      await remote.close();
    }
  });
});
