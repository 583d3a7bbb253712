/**
 * The soak test, `npm run soak` (not part of `npm test`): a million calls through `executeBatch`,
 * then 50k calls through the Streamable HTTP server from 16 clients at once, checking every
 * result and the heap (after a full collection) at the start and the end of each part; then 50k
 * random batches of up to 10 jobs through the engine and its pipeline model
 * (marbles/pipeline-model.ts), which must agree event for event.
 *
 *   npm run soak                       # both parts, the figures on stdout
 *   npm run soak -- --calls=200000     # fewer engine calls
 *   npm run soak -- --http-calls=5000  # fewer HTTP calls
 *   npm run soak -- --per-client=4     # calls each HTTP client keeps in flight (default 8)
 *   npm run soak -- --model-cases=5000 # fewer random batches for the engine against the model
 *   npm run soak -- --model-seed=7     # replay the random batches of a seed
 *
 * Exits 1 when a call failed, a result was missing, wrong or repeated, or the heap did not come
 * back; 0 otherwise. The server runs in a child process of its own (this file with `serve`), so
 * the clients and the server each have a core, and its heap is read through a tool it serves.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connectMcp, httpTransport, type McpRemote } from '../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp } from '../adapters/mcp-server/index.js';
import { rawTool, textResult, tool, type Tool } from '../index.js';
import { executeBatch, type Job } from '../operators/index.js';
import fc from 'fast-check';
import { caseArbitrary, expectSameTrace } from '../marbles/differential.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) {
  process.stderr.write('soak: run with node --expose-gc (npm run soak does)\n');
  process.exit(2);
}
const gc = collect;

function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function option(name: string, fallback: number): number {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
}

const TOKEN = 'soak-token';
const n = z.object({ n: z.number().int() });

/** The engine's mix: typed, async, generator, raw, and two resources; each output is known. */
const engineTools: { tool: Tool; expected: (i: number) => string }[] = [
  {
    tool: tool({ name: 'typed', description: '', parameters: n, execute: ({ n }) => `t${n}` }),
    expected: (i) => `t${i}`,
  },
  {
    tool: tool({
      name: 'async',
      description: '',
      parameters: n,
      execute: async ({ n }) => `a${n}`,
    }),
    expected: (i) => `a${i}`,
  },
  {
    tool: tool({
      name: 'steps',
      description: '',
      parameters: n,
      async *execute({ n }) {
        yield 'half way';
        return `s${n}`;
      },
    }),
    expected: (i) => `s${i}`,
  },
  {
    tool: rawTool({ name: 'raw', description: '', execute: (call) => textResult(call.id) }),
    expected: (i) => `c${i}`,
  },
  {
    tool: tool({
      name: 'lock1',
      description: '',
      parameters: n,
      resource: 'r1',
      execute: ({ n }) => `l${n}`,
    }),
    expected: (i) => `l${i}`,
  },
  {
    tool: tool({
      name: 'lock2',
      description: '',
      parameters: n,
      resource: 'r2',
      execute: async ({ n }) => `m${n}`,
    }),
    expected: (i) => `m${i}`,
  },
];

interface Tally {
  calls: number;
  failed: number;
  wrong: number;
  missing: number;
  repeated: number;
  firstProblem?: string;
}

function problem(tally: Tally, what: string): void {
  tally.firstProblem ??= what;
}

async function engineBatch(base: number, size: number, tally: Tally): Promise<void> {
  const jobs: Job[] = new Array(size);
  for (let i = 0; i < size; i++) {
    const id = base + i;
    jobs[i] = {
      tool: engineTools[id % engineTools.length]!.tool,
      call: { id: `c${id}`, args: `{"n":${id}}` },
    };
  }
  const finals = new Uint8Array(size);
  await new Promise<void>((resolve, reject) =>
    executeBatch(jobs, { maxParallel: 64 }).subscribe({
      next: (event) => {
        if (!event.final) return;
        if (finals[event.index]++ > 0) tally.repeated++;
        const id = base + event.index;
        if (event.error !== undefined) {
          tally.failed++;
          problem(tally, `c${id}: ${event.error.message}`);
        } else if (event.result?.output !== engineTools[id % engineTools.length]!.expected(id)) {
          tally.wrong++;
          problem(tally, `c${id}: ${JSON.stringify(event.result?.output)}`);
        }
      },
      error: reject,
      complete: resolve,
    }),
  );
  tally.calls += size;
  for (const count of finals) if (count === 0) tally.missing++;
}

async function engineSoak(total: number): Promise<string[]> {
  const batch = 50_000;
  const tally: Tally = { calls: 0, failed: 0, wrong: 0, missing: 0, repeated: 0 };
  await engineBatch(1e9, batch, { ...tally }); // warm-up, not counted
  const start = heapMiB();
  let peak = start;
  const began = performance.now();
  for (let base = 0; base < total; base += batch) {
    await engineBatch(base, Math.min(batch, total - base), tally);
    if ((base / batch) % 5 === 4) peak = Math.max(peak, heapMiB());
  }
  const seconds = (performance.now() - began) / 1000;
  const end = heapMiB();
  return report('executeBatch', tally, seconds, [['heap (MiB)', start, end, peak]]);
}

/** The server side: three tools, the heap reader among them, on loopback with the token. */
async function serve(): Promise<void> {
  let executed = 0;
  const tools = [
    tool({
      name: 'echo',
      description: '',
      parameters: n,
      execute: ({ n }) => (executed++, `e${n}`),
    }),
    tool({
      name: 'steps',
      description: '',
      parameters: n,
      async *execute({ n }) {
        executed++;
        yield { progress: 1, total: 2, message: 'half way' };
        return `s${n}`;
      },
    }),
    tool({ name: 'heap', description: '', execute: () => ({ heap: heapMiB(), executed }) }),
  ];
  const http = await serveHttp({
    token: TOKEN,
    factory: () => createMcpServer({ name: 'soak', version: '1' }, tools),
  });
  process.stdout.write(`READY ${http.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void http.close().then(() => process.exit(0)));
}

async function call(remote: McpRemote, name: string, args = ''): Promise<unknown> {
  const found = remote.tools.find((t) => t.name === name)!;
  const events = await lastValueFrom(
    executeBatch([{ tool: found, call: { id: name, args } }]).pipe(toArray()),
  );
  const final = events.at(-1)!;
  if (final.error !== undefined) throw final.error;
  if (!final.final) throw new Error(`${name}: no final event`);
  return final.result.output;
}

async function httpSoak(total: number, clients: number): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', import.meta.filename, 'serve'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('READY ')) resolve(line.slice(6));
    });
    child.once('exit', () => reject(new Error('soak: the server exited')));
  });
  const headers = { authorization: `Bearer ${TOKEN}` };
  const remotes = await Promise.all(
    Array.from({ length: clients }, (_, i) =>
      connectMcp(httpTransport(url, { headers }), {
        clientInfo: { name: `soak-${i}`, version: '1' },
      }),
    ),
  );
  const serverHeap = async () =>
    JSON.parse((await call(remotes[0]!, 'heap')) as string) as { heap: number; executed: number };
  await Promise.all(remotes.map((r) => call(r, 'echo', '{"n":0}'))); // warm-up
  const serverStart = await serverHeap();
  const clientStart = heapMiB();
  const tally: Tally = { calls: 0, failed: 0, wrong: 0, missing: 0, repeated: 0 };
  const began = performance.now();
  await Promise.all(
    remotes.map(async (remote, c) => {
      const echo = remote.tools.find((t) => t.name === 'echo')!;
      const steps = remote.tools.find((t) => t.name === 'steps')!;
      const share = Math.floor(total / clients) + (c < total % clients ? 1 : 0);
      const jobs: Job[] = Array.from({ length: share }, (_, i) => ({
        tool: i % 5 === 4 ? steps : echo,
        call: { id: `${c}:${i}`, args: `{"n":${c * 1_000_000 + i}}` },
      }));
      const events = await lastValueFrom(
        executeBatch(jobs, { maxParallel: option('per-client', 8) }).pipe(toArray()),
      );
      const finals = new Uint8Array(share);
      for (const event of events) {
        if (!event.final) continue;
        if (finals[event.index]++ > 0) tally.repeated++;
        const i = event.index;
        const want = `${i % 5 === 4 ? 's' : 'e'}${c * 1_000_000 + i}`;
        if (event.error !== undefined) {
          tally.failed++;
          problem(tally, `${c}:${i}: ${event.error.message}`);
        } else if (event.result?.output !== want) {
          tally.wrong++;
          problem(tally, `${c}:${i}: ${JSON.stringify(event.result?.output)}`);
        }
      }
      tally.calls += share;
      for (const count of finals) if (count === 0) tally.missing++;
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  const clientEnd = heapMiB();
  const serverEnd = await serverHeap();
  const executed = serverEnd.executed - serverStart.executed;
  if (executed !== total) problem(tally, `the server ran ${executed} calls for ${total}`);
  await Promise.all(remotes.map((r) => r.close()));
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
  return report(`HTTP, ${clients} clients`, tally, seconds, [
    ['client heap (MiB)', clientStart, clientEnd, undefined],
    ['server heap (MiB)', serverStart.heap, serverEnd.heap, undefined],
  ]);
}

let healthy = true;

function report(
  part: string,
  tally: Tally,
  seconds: number,
  heaps: [string, number, number, number | undefined][],
): string[] {
  const clean =
    tally.failed + tally.wrong + tally.missing + tally.repeated === 0 &&
    tally.firstProblem === undefined;
  const heapBack = heaps.every(([, start, end]) => end - start < Math.max(8, start * 0.25));
  healthy &&= clean && heapBack;
  const rows = [
    `| ${part} | ${tally.calls.toLocaleString('en')} | ${tally.failed} | ${tally.missing} | ${tally.wrong + tally.repeated} | ${seconds.toFixed(1)} s | ${Math.round(tally.calls / seconds).toLocaleString('en')} |`,
  ];
  for (const [name, start, end, peak] of heaps)
    rows.push(
      `| ${part}: ${name} | start ${start.toFixed(1)} | end ${end.toFixed(1)} | ${peak === undefined ? '' : `peak ${peak.toFixed(1)}`} | | | |`,
    );
  if (tally.firstProblem !== undefined) rows.push(`first problem: ${tally.firstProblem}`);
  for (const row of rows) process.stderr.write(`${row}\n`);
  return rows;
}

/** The engine against the pipeline model on random batches in virtual time (marbles/). */
function modelSoak(cases: number): string[] {
  const seed = option('model-seed', Date.now() % 2 ** 31);
  const began = performance.now();
  const result = fc.check(
    fc.property(caseArbitrary(10), (spec) => expectSameTrace(spec)),
    {
      numRuns: cases,
      seed,
    },
  );
  const seconds = (performance.now() - began) / 1000;
  const tally: Tally = { calls: result.numRuns, failed: 0, wrong: 0, missing: 0, repeated: 0 };
  if (result.failed) {
    tally.wrong = 1;
    tally.firstProblem = `engine and model differ (seed ${seed}): ${JSON.stringify(result.counterexample)}`;
  }
  return report('engine = model (cases)', tally, seconds, []);
}

async function main(): Promise<void> {
  if (process.argv[2] === 'serve') return serve();
  const rows = [
    '| part | calls | failed | missing | wrong or repeated | time | calls/s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...(await engineSoak(option('calls', 1_000_000))),
    ...(await httpSoak(option('http-calls', 50_000), 16)),
    ...modelSoak(option('model-cases', 50_000)),
  ];
  process.stdout.write(`${rows.join('\n')}\n`);
  process.stdout.write(
    healthy ? 'soak: no failed, missing or wrong call; heap came back\n' : 'soak: FAILED\n',
  );
  process.exitCode = healthy ? 0 : 1;
}

await main();
