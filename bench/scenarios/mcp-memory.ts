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
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import { interleave, type RoundOptions, type Sampled } from '../harness.js';
import { row, type Row } from '../report.js';
import {
  askCalls,
  askingClientOf,
  askTool,
  echoTool,
  INFO,
  remoteCalls,
  sdkAskServer,
  sdkCalls,
  sdkCallsLikeOurs,
  sdkCallsWithToken,
  sdkClientOf,
  sdkServer,
  v2Calls,
  v2ClientOf,
} from './mcp-memory-sides.js';
import type { Scale } from './scale-options.js';

/** Runs scenario 5 and returns its rows. */
export async function mcpMemoryScenario(scale: Scale): Promise<Row[]> {
  // Short samples, many rounds: a burst of load from another process lands in a few samples of
  // each side, which the median leaves out, rather than in one long sample of one side.
  const count = Math.round(250 * scale.size);
  const rounds = scale.rounds(120);
  const warmup = scale.size < 1 ? 1 : 8;

  const plan = { count, rounds, warmup };
  const classic = await clientSamples(plan);
  const modern = await modernClientSamples(plan);
  const eras = await serverSamples(plan);
  const asking = await askSamples(plan);
  return rowsOf(classic, modern, eras, asking);
}

/** How many calls a sample makes, in how many rounds, after how many warm-up rounds. */
interface Plan extends RoundOptions {
  readonly count: number;
}

/** The client in MCP 2025-11-25: ours, the SDK's bare, asked for what ours asks, with a token. */
async function clientSamples({ count, rounds, warmup }: Plan): Promise<Sampled[]> {
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
  const samples = await interleave(
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
  return samples;
}

/**
 * The client in MCP 2026-07-28: ours and the SDK's v2 client, both against the SDK's server served
 * by its era-picking entry, both negotiating the modern era.
 */
async function modernClientSamples({ count, rounds, warmup }: Plan): Promise<Sampled[]> {
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
  const samples = await interleave(
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
  return samples;
}

/** The server: ours and the SDK's v2 McpServer, both called by the SDK's v2 client, in each era. */
async function serverSamples({ count, rounds, warmup }: Plan): Promise<Sampled[][]> {
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
  return eras;
}

/**
 * A call whose tool asks one question, answered by the client's retry: ours holds the running
 * call; the SDK's runs its handler again with the answer.
 */
async function askSamples({ count, rounds, warmup }: Plan): Promise<Sampled[]> {
  const [askOurs, askSdk] = await Promise.all([
    askingClientOf(() => createMcpServer(INFO, [askTool])),
    askingClientOf(sdkAskServer),
  ]);
  const samples = await interleave(
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
  return samples;
}

/** The scenario's rows, from the samples in the order they were taken. */
function rowsOf(
  classic: Sampled[],
  modern: Sampled[],
  eras: Sampled[][],
  asking: Sampled[],
): Row[] {
  const [client, sdkClient] = classic as [Sampled, Sampled];
  const [modernClient, sdkModernClient] = modern as [Sampled, Sampled];
  const [asked, sdkAsked] = asking as [Sampled, Sampled];
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
  rows.splice(2, 0, ...likeOursRows(scenario, target, classic, modern));
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

/**
 * The client's rows against the SDK asked for what ours asks (in each era), and what a progress
 * token alone costs the SDK: they follow the client's first two rows.
 */
function likeOursRows(
  scenario: string,
  target: Row['target'],
  classic: Sampled[],
  modern: Sampled[],
): Row[] {
  const [client, sdkClient, sdkAlike, sdkTokened] = classic as [Sampled, Sampled, Sampled, Sampled];
  const [modernClient, , sdkModernAlike] = modern as [Sampled, Sampled, Sampled];
  return [
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
  ];
}
