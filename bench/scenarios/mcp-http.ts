/**
 * Scenario 6, Streamable HTTP on loopback: 16 clients call the example tools (`upper` and `add` in
 * turn) one call at a time for a fixed time, against the served example tools (`serveHttp` +
 * `createMcpServer`) and against the same tools registered on the SDK's v2 `McpServer`: in MCP
 * 2025-11-25 each client in its own session (the SDK behind its `StreamableHTTPServerTransport`),
 * in 2026-07-28 without sessions (the SDK behind `createMcpHandler`). Each server runs in a child
 * process; both run for the whole scenario and are driven in alternate rounds. Reports calls per
 * second and the median and p99 latency of each.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { CallContext } from '../../lib/context.js';
import type { Tool } from '../../lib/contract.js';
import { drive, HttpMcpClient, type LoadResult } from '../http-load.js';
import { interleave, quantile, type Sampled } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const CLIENTS = 16;
/** The server script beside this one: compiled when this runs compiled (`npm run bench`). */
const COMPILED = import.meta.url.endsWith('.js');
const SERVER = fileURLToPath(
  new URL(COMPILED ? '../http-server.js' : '../http-server.ts', import.meta.url),
);

interface Running {
  readonly url: URL;
  readonly child: ChildProcess;
}

function start(mode: 'adapter' | 'sdk' | 'sdk-modern'): Promise<Running> {
  const loader = COMPILED ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...loader, SERVER, mode], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start`)), 60_000);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('READY ')) return;
      clearTimeout(timer);
      resolve({ url: new URL(line.slice(6)), child });
    });
  });
}

function stop(running: Running): Promise<void> {
  return new Promise((resolve) => {
    if (running.child.exitCode !== null) return resolve();
    const timer = setTimeout(() => running.child.kill('SIGKILL'), 5_000);
    running.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    running.child.stdin!.end();
  });
}

async function clientsOf(
  url: URL,
  modern: boolean,
): Promise<{ clients: HttpMcpClient[]; agent: Agent }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const clients = Array.from({ length: CLIENTS }, () => new HttpMcpClient(url, agent, modern));
  await Promise.all(clients.map((client) => client.initialize()));
  return { clients, agent };
}

function merge(results: readonly LoadResult[]): LoadResult {
  return {
    calls: results.reduce((sum, r) => sum + r.calls, 0),
    seconds: results.reduce((sum, r) => sum + r.seconds, 0),
    latencies: results.flatMap((r) => r.latencies),
  };
}

/** One era: ours and the SDK's server driven in alternate rounds; the rows of the comparison. */
async function compare(
  scale: Scale,
  era: '2025-11-25' | '2026-07-28',
  baseline: 'sdk' | 'sdk-modern',
): Promise<Row[]> {
  const seconds = scale.httpSeconds;
  const rounds = Math.max(1, Math.round(seconds / 2.5));
  const modern = era === '2026-07-28';
  const servers = await Promise.all([start('adapter'), start(baseline)]);
  try {
    const sides = await Promise.all(servers.map((server) => clientsOf(server.url, modern)));
    // A short warm-up of each, untimed, so neither side's first round pays its JIT.
    for (const side of sides) await drive(side.clients, Math.min(1, seconds / 4));
    const results: LoadResult[][] = [[], []];
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < 2; k++) {
        const i = (round + k) % 2;
        results[i].push(await drive(sides[i].clients, seconds / rounds));
      }
    }
    for (const side of sides) side.agent.destroy();
    const [adapter, sdk] = results.map(merge);
    const scenario = '6 MCP over HTTP';
    const name = `${era}, ${CLIENTS} ${modern ? 'clients without sessions' : 'sessions'}, ${seconds} s each`;
    const rate = (r: LoadResult) => r.calls / r.seconds;
    const label = modern ? 'McpServer (createMcpHandler)' : 'McpServer';
    return [
      row({
        scenario,
        name: `${name}: throughput`,
        ours: { label: 'serveHttp', value: rate(adapter), unit: 'calls/s' },
        baseline: { label, value: rate(sdk), unit: 'calls/s' },
        ...(modern ? { target: { on: 'ratio', max: 1.2, text: '<= 1.2x' } as const } : {}),
      }),
      row({
        scenario,
        name: `${name}: median latency`,
        ours: { label: 'serveHttp', value: quantile(adapter.latencies, 0.5), unit: 'ms' },
        baseline: { label, value: quantile(sdk.latencies, 0.5), unit: 'ms' },
      }),
      row({
        scenario,
        name: `${name}: p99 latency`,
        ours: { label: 'serveHttp', value: quantile(adapter.latencies, 0.99), unit: 'ms' },
        baseline: { label, value: quantile(sdk.latencies, 0.99), unit: 'ms' },
      }),
    ];
  } finally {
    await Promise.all(servers.map(stop));
  }
}

/** One call of `upper` through a Tool's execute, resolved at its final event. */
function upperOnce(upper: Tool, i: number): Promise<void> {
  const call = { id: `c${i}`, args: '{"text":"hello"}' };
  return new Promise((resolve, reject) => {
    upper.execute(call, new CallContext(call)).subscribe({
      next: (event) => {
        if (event.final) resolve();
      },
      error: reject,
    });
  });
}

function ignoreProgress(): void {}

/** The SDK's v2 client of `url` in MCP 2026-07-28; with `answers`, declaring elicitation. */
async function sdkClientOf(url: URL, answers: boolean): Promise<Client> {
  const client = new Client(
    { name: 'bench-client', version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      ...(answers ? { capabilities: { elicitation: { form: { applyDefaults: true } } } } : {}),
    },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** The rows of the client over HTTP: against the SDK asked for what ours asks, and bare. */
function clientRows(ours: Sampled, sdkAlike: Sampled, sdkBare: Sampled): Row[] {
  const scenario = '6 MCP over HTTP';
  const name = 'client (2026-07-28): calls in turn, latency';
  return [
    row({
      scenario,
      name,
      ours: { label: ours.name, value: ours.wallMedian, unit: 'ns/call' },
      baseline: { label: sdkAlike.name, value: sdkAlike.wallMedian, unit: 'ns/call' },
      target: { on: 'ratio', max: 1.2, text: '<= 1.2x' },
      note: 'the SDK asked for what connectMcp asks on every call, declaring what it declares',
    }),
    row({
      scenario,
      name,
      ours: { label: ours.name, value: ours.wallMedian, unit: 'ns/call' },
      baseline: { label: sdkBare.name, value: sdkBare.wallMedian, unit: 'ns/call' },
    }),
  ];
}

/**
 * The client over HTTP in MCP 2026-07-28: `connectMcp` and the SDK's v2 `Client`, one call at a
 * time, against the same `serveHttp` server; the SDK asked for what `connectMcp` asks on every
 * call (progress, a signal) and declaring what it declares (elicitation), and bare.
 */
async function compareClients(scale: Scale): Promise<Row[]> {
  const server = await start('adapter');
  const count = Math.round(100 * scale.size);
  try {
    const remote = await connectMcp(httpTransport(server.url.href));
    const [alike, bare] = await Promise.all([
      sdkClientOf(server.url, true),
      sdkClientOf(server.url, false),
    ]);
    if (remote.protocolVersion !== '2026-07-28' || alike.getProtocolEra() !== 'modern')
      throw new Error('the clients did not go modern');
    const upper = remote.tools.find((tool) => tool.name === 'upper')!;
    const args = { text: 'hello' };
    const [ours, sdkAlike, sdkBare] = await interleave(
      [
        {
          name: 'connectMcp',
          calls: count,
          clock: 'wall',
          run: async () => {
            for (let i = 0; i < count; i++) await upperOnce(upper, i);
          },
        },
        {
          name: 'callTool+progress+signal+elicitation',
          calls: count,
          clock: 'wall',
          run: async () => {
            for (let i = 0; i < count; i++)
              await alike.callTool(
                { name: 'upper', arguments: args },
                {
                  onprogress: ignoreProgress,
                  resetTimeoutOnProgress: true,
                  signal: new AbortController().signal,
                },
              );
          },
        },
        {
          name: 'Client.callTool',
          calls: count,
          clock: 'wall',
          run: async () => {
            for (let i = 0; i < count; i++) await bare.callTool({ name: 'upper', arguments: args });
          },
        },
      ],
      { rounds: scale.rounds(30), warmup: scale.size < 1 ? 1 : 3 },
    );
    await Promise.all([remote.close(), alike.close(), bare.close()]);
    return clientRows(ours!, sdkAlike!, sdkBare!);
  } finally {
    await stop(server);
  }
}

/** Runs scenario 6 and returns its rows: MCP 2025-11-25 in sessions, then 2026-07-28 without. */
export async function mcpHttpScenario(scale: Scale): Promise<Row[]> {
  return [
    ...(await compare(scale, '2025-11-25', 'sdk')),
    ...(await compare(scale, '2026-07-28', 'sdk-modern')),
    ...(await compareClients(scale)),
  ];
}
