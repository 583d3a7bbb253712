/**
 * Scenario 5, MCP over the SDK's in-memory linked transports, calls one after another (samples of
 * 250 calls, 120 rounds, every side once per round in rotating order):
 *
 * - Client: our adapter (`connectMcp`, each call through the remote tool's `execute`) against the
 *   SDK's (v2) `Client.callTool`, in MCP 2025-11-25: bare, asked for what our client asks (progress and a signal), and
 *   with a progress token alone (what asking for progress costs the SDK's server); all call the
 *   same server (the SDK's `McpServer`, one instance per connection, serving a read-only `echo`).
 * - Server: our adapter (`createMcpServer` serving a `tool()`) against the SDK's v2
 *   `McpServer.registerTool` serving the same function, both called by the SDK's v2 `Client`,
 *   each served by the SDK's era-picking entry: once in MCP 2025-11-25, once in 2026-07-28.
 *
 * The tool is read-only on purpose: after a call of a tool that is not, our client waits up to
 * `notificationGrace` (50 ms) for a list-changed notification, by design, once the server has
 * sent one (this one never does, so either kind of tool would do).
 *
 * @module
 */
import { Client, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { connectMcp, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import { TASKS_EXTENSION } from '../../adapters/mcp-shared/tasks-extension.js';
import { rawTool, tool, type Tool } from '../../index.js';
import { Observable } from 'rxjs';
import { CallContext } from '../../lib/context.js';
import type { ToolEvent } from '../../lib/contract.js';
import { interleave } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const INFO = { name: 'bench', version: '1.0.0' };
const ARGS = { text: 'hello' };

function echo(text: string): string {
  return text;
}

/**
 * The SDK's v2 client, over an in-memory pair whose server side is served by the SDK's stdio entry
 * (`serveStdio` with our transport), which picks the era from the client's opening: `modern`
 * negotiates 2026-07-28 (`server/discover`), otherwise 2025-11-25 (`initialize`).
 */
async function v2ClientOf(
  factory: () => McpServer | ReturnType<typeof createMcpServer>,
  modern: boolean,
  answers = false,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveEras(factory, { transport: serverSide });
  const client = new Client(
    { name: 'bench-client', version: '1.0.0' },
    {
      ...(modern ? { versionNegotiation: { mode: 'auto' } } : {}),
      // What connectMcp declares (it answers a server's questions and polls its tasks): in
      // 2026-07-28 the capabilities travel, and are read, on every request.
      ...(answers
        ? {
            capabilities: {
              elicitation: { form: {} },
              extensions: { [TASKS_EXTENSION]: {} },
            } as ClientCapabilities,
          }
        : {}),
    },
  );
  await client.connect(clientSide);
  if ((client.getProtocolEra() === 'modern') !== modern)
    throw new Error('the era was not the one asked');
  return {
    client,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

async function v2Calls(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = await client.callTool({ name: 'echo', arguments: ARGS });
    if (result.isError === true) throw new Error('echo failed');
  }
}

/** The SDK's own server with the SDK's own registration. */
function sdkServer(): McpServer {
  const server = new McpServer(INFO);
  server.registerTool(
    'echo',
    {
      description: 'Echo the text.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text }): CallToolResult => ({ content: [{ type: 'text', text: echo(text) }] }),
  );
  return server;
}

const echoTool: Tool = tool({
  name: 'echo',
  description: 'Echo the text.',
  parameters: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ text }) => echo(text),
});

async function sdkClientOf(
  connect: (transport: InMemoryTransport) => Promise<void>,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connect(serverSide);
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

async function sdkCalls(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = (await client.callTool({ name: 'echo', arguments: ARGS })) as CallToolResult;
    if (result.isError === true) throw new Error('echo failed');
  }
}

function ignoreProgress(): void {}

/** What our client asks of the SDK on every call: progress (so the timeout restarts) and a signal. */
async function sdkCallsLikeOurs(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = (await client.callTool(
      { name: 'echo', arguments: ARGS },
      {
        onprogress: ignoreProgress,
        resetTimeoutOnProgress: true,
        signal: new AbortController().signal,
      },
    )) as CallToolResult;
    if (result.isError === true) throw new Error('echo failed');
  }
}

/**
 * What asking for progress alone costs the SDK's server: a bare callTool whose request carries a
 * progress token, as every request of our client does (the server parses the `_meta` it is in).
 */
async function sdkCallsWithToken(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const params = { name: 'echo', arguments: ARGS, _meta: { progressToken: `token-${i}` } };
    const result = (await client.callTool(params)) as CallToolResult;
    if (result.isError === true) throw new Error('echo failed');
  }
}

/** One call through a Tool's execute, resolved at its final event. */
function callOnce(remoteTool: Tool, id: string): Promise<void> {
  const call = { id, args: '{"text":"hello"}' };
  return new Promise((resolve, reject) => {
    remoteTool.execute(call, new CallContext(call)).subscribe({
      next(event: ToolEvent) {
        if (event.final) resolve();
      },
      error: reject,
    });
  });
}

async function remoteCalls(remote: McpRemote, count: number): Promise<void> {
  const remoteTool = remote.tools[0];
  for (let i = 0; i < count; i++) await callOnce(remoteTool, `call_${i}`);
}

const goSchema = () => ({
  type: 'object' as const,
  properties: { go: { type: 'boolean' as const } },
  required: ['go'],
});

/** A served tool that asks one question, then answers: agenttool holds the call for the answer. */
const askTool: Tool = rawTool({
  name: 'ask',
  description: 'Asks, then answers.',
  execute: (_call, context) =>
    new Observable((subscriber) => {
      void context.elicit({ key: 'go', message: 'Go?', schema: goSchema() }).then((answer) => {
        subscriber.next({ final: true, result: { output: answer.action } });
        subscriber.complete();
      });
    }),
});

/** The same with the SDK's own server: the handler returns input_required, and runs again. */
function sdkAskServer(): McpServer {
  const server = new McpServer(INFO);
  server.registerTool('ask', { description: 'Asks, then answers.' }, (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.go as { action: string } | undefined;
    if (answer === undefined)
      return inputRequired({
        inputRequests: {
          go: inputRequired.elicit({ message: 'Go?', requestedSchema: goSchema() }),
        },
      });
    return { content: [{ type: 'text', text: answer.action }] };
  });
  return server;
}

/** The SDK's v2 client in 2026-07-28, answering every question `accept`. */
async function askingClientOf(
  factory: () => McpServer | ReturnType<typeof createMcpServer>,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveEras(factory, { transport: serverSide });
  const client = new Client(
    { name: 'bench-client', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { go: true },
  }));
  await client.connect(clientSide);
  if (client.getProtocolEra() !== 'modern') throw new Error('the asking client did not go modern');
  return {
    client,
    close: async () => {
      await client.close();
      await handle.close();
    },
  };
}

async function askCalls(client: Client, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = (await client.callTool({ name: 'ask', arguments: {} })) as CallToolResult;
    if ((result.content[0] as { text?: string } | undefined)?.text !== 'accept')
      throw new Error(`the question was not answered: ${JSON.stringify(result)}`);
  }
}

/** Runs scenario 5 and returns its rows. */
export async function mcpMemoryScenario(scale: Scale): Promise<Row[]> {
  // Short samples, many rounds: a burst of load from another process lands in a few samples of
  // each side, which the median leaves out, rather than in one long sample of one side.
  const count = Math.round(250 * scale.size);
  const rounds = scale.rounds(120);
  const warmup = scale.size < 1 ? 1 : 8;

  const [ours, plain, alike, tokened] = await Promise.all([
    (async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await sdkServer().connect(serverSide);
      return connectMcp(clientSide);
    })(),
    sdkClientOf((transport) => sdkServer().connect(transport)),
    sdkClientOf((transport) => sdkServer().connect(transport)),
    sdkClientOf((transport) => sdkServer().connect(transport)),
  ]);
  const [client, sdkClient, sdkAlike, sdkTokened] = await interleave(
    [
      { name: 'connectMcp', calls: count, clock: 'wall', run: () => remoteCalls(ours, count) },
      { name: 'Client.callTool', calls: count, clock: 'wall', run: () => sdkCalls(plain, count) },
      {
        name: 'callTool+progress+signal',
        calls: count,
        clock: 'wall',
        run: () => sdkCallsLikeOurs(alike, count),
      },
      {
        name: 'callTool+progress token',
        calls: count,
        clock: 'wall',
        run: () => sdkCallsWithToken(tokened, count),
      },
    ],
    { rounds, warmup },
  );
  await Promise.all([ours.close(), plain.close(), alike.close(), tokened.close()]);

  // The client in MCP 2026-07-28: ours and the SDK's v2 client, both against the SDK's server served
  // by its era-picking entry, both negotiating the modern era.
  const [modernOurs, modernSdk, modernAlike] = await Promise.all([
    (async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const handle = serveEras(sdkServer, { transport: serverSide });
      const remote = await connectMcp(clientSide);
      if (remote.protocolVersion !== '2026-07-28') throw new Error('connectMcp did not go modern');
      return { remote, close: async () => (await remote.close(), await handle.close()) };
    })(),
    v2ClientOf(sdkServer, true),
    v2ClientOf(sdkServer, true, true),
  ]);
  const [modernClient, sdkModernClient, sdkModernAlike] = await interleave(
    [
      {
        name: 'connectMcp',
        calls: count,
        clock: 'wall',
        run: () => remoteCalls(modernOurs.remote, count),
      },
      {
        name: 'Client.callTool',
        calls: count,
        clock: 'wall',
        run: () => v2Calls(modernSdk.client, count),
      },
      {
        name: 'callTool+progress+signal+elicitation',
        calls: count,
        clock: 'wall',
        run: () => sdkCallsLikeOurs(modernAlike.client, count),
      },
    ],
    { rounds, warmup },
  );
  await Promise.all([modernOurs.close(), modernSdk.close(), modernAlike.close()]);

  // The server: ours and the SDK's v2 McpServer, both called by the SDK's v2 client, in each era.
  const eras = [];
  for (const modern of [false, true]) {
    const [toOurs, toSdk] = await Promise.all([
      v2ClientOf(() => createMcpServer(INFO, [echoTool]), modern),
      v2ClientOf(sdkServer, modern),
    ]);
    eras.push(
      await interleave(
        [
          {
            name: 'createMcpServer',
            calls: count,
            clock: 'wall',
            run: () => v2Calls(toOurs.client, count),
          },
          {
            name: 'McpServer.registerTool',
            calls: count,
            clock: 'wall',
            run: () => v2Calls(toSdk.client, count),
          },
        ],
        { rounds, warmup },
      ),
    );
    await Promise.all([toOurs.close(), toSdk.close()]);
  }
  // A call whose tool asks one question, answered by the client's retry: ours holds the running
  // call; the SDK's runs its handler again with the answer.
  const [askOurs, askSdk] = await Promise.all([
    askingClientOf(() => createMcpServer(INFO, [askTool])),
    askingClientOf(sdkAskServer),
  ]);
  const [asked, sdkAsked] = await interleave(
    [
      {
        name: 'createMcpServer (held)',
        calls: count,
        clock: 'wall',
        run: () => askCalls(askOurs.client, count),
      },
      {
        name: 'McpServer (input_required, re-run)',
        calls: count,
        clock: 'wall',
        run: () => askCalls(askSdk.client, count),
      },
    ],
    { rounds, warmup },
  );
  await Promise.all([askOurs.close(), askSdk.close()]);

  const [[server, sdkServed], [modernServer, sdkModern]] = eras as [
    [typeof client, typeof client],
    [typeof client, typeof client],
  ];

  const scenario = '5 MCP in memory';
  const target = { on: 'ratio', max: 1.2, text: '<= 1.2x' } as const;
  // The client asks for progress on every call, which costs the SDK's server a `_meta` to parse:
  // against a bare callTool, the target leaves room for that.
  const bareTarget = { on: 'ratio', max: 1.5, text: '<= 1.5x' } as const;
  // The 2026-07-28 client against a bare callTool declaring nothing: its capabilities travel with
  // every request and the server reads them each time; within 1.3x all the same.
  const modernBareTarget = { on: 'ratio', max: 1.3, text: '<= 1.3x' } as const;
  const rows: Row[] = [];
  for (const [side, ours, base, sideTarget] of [
    ['client', client, sdkClient, bareTarget],
    ['client (2026-07-28)', modernClient, sdkModernClient, modernBareTarget],
    ['server (2025-11-25)', server, sdkServed, target],
    ['server (2026-07-28)', modernServer, sdkModern, target],
  ] as const) {
    rows.push(
      row({
        scenario,
        name: `${side}: calls in turn, latency`,
        ours: { label: ours.name, value: ours.wallMedian, unit: 'ns/call' },
        baseline: { label: base.name, value: base.wallMedian, unit: 'ns/call' },
        target: sideTarget,
      }),
      row({
        scenario,
        name: `${side}: calls in turn, CPU time`,
        ours: { label: ours.name, value: ours.cpuMedian, unit: 'ns/call' },
        baseline: { label: base.name, value: base.cpuMedian, unit: 'ns/call' },
      }),
    );
  }
  rows.splice(
    2,
    0,
    row({
      scenario,
      name: `client: calls in turn, latency`,
      ours: { label: client.name, value: client.wallMedian, unit: 'ns/call' },
      baseline: { label: sdkAlike.name, value: sdkAlike.wallMedian, unit: 'ns/call' },
      target,
      note: 'the SDK asked for what our client asks on every call: progress and a signal',
    }),
    row({
      scenario,
      name: `client (2026-07-28): calls in turn, latency`,
      ours: { label: modernClient.name, value: modernClient.wallMedian, unit: 'ns/call' },
      baseline: { label: sdkModernAlike.name, value: sdkModernAlike.wallMedian, unit: 'ns/call' },
      target,
      note: 'the SDK asked for what our client asks on every call: progress and a signal',
    }),
    row({
      scenario,
      name: `client: a progress token alone, latency`,
      ours: { label: sdkTokened.name, value: sdkTokened.wallMedian, unit: 'ns/call' },
      baseline: { label: sdkClient.name, value: sdkClient.wallMedian, unit: 'ns/call' },
      note: 'what a request asking for progress costs the SDK itself, the floor under our client',
    }),
    row({
      scenario,
      name: `client: a progress token alone, CPU time`,
      ours: { label: sdkTokened.name, value: sdkTokened.cpuMedian, unit: 'ns/call' },
      baseline: { label: sdkClient.name, value: sdkClient.cpuMedian, unit: 'ns/call' },
    }),
  );
  rows.push(
    row({
      scenario,
      name: 'server (2026-07-28): a call with one question answered, latency',
      ours: { label: asked.name, value: asked.wallMedian, unit: 'ns/call' },
      baseline: { label: sdkAsked.name, value: sdkAsked.wallMedian, unit: 'ns/call' },
      note: 'not the same work: ours keeps the call running and signs its state, so nothing runs twice (docs/mcp.md)',
    }),
    row({
      scenario,
      name: 'server (2026-07-28): a call with one question answered, CPU time',
      ours: { label: asked.name, value: asked.cpuMedian, unit: 'ns/call' },
      baseline: { label: sdkAsked.name, value: sdkAsked.cpuMedian, unit: 'ns/call' },
    }),
  );
  return rows;
}
