/**
 * Scenario 1, executor overhead: 100k trivial calls through `executeBatch` (maxParallel 8)
 * against a bare `from(jobs).pipe(mergeMap(run, 8))`, a hand-written promise pool of 8, and a
 * plain loop (the floor). Every side runs the same tool values with the same `execute(call,
 * context)`, so the differences are the scheduling alone.
 *
 * @module
 */
import { from, mergeMap, of, type Observable, type Observer } from 'rxjs';
import { z } from 'zod';
import { executeBatch, tool, type Job } from '../../index.js';
import { CallContext } from '../../lib/context.js';
import type { Tool, ToolEvent } from '../../lib/contract.js';
import { interleave, type Sampled, type Variant } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';
import { ARGS, list, listSchema } from './typed-call.js';

/** A tool of the contract written by hand: its observable emits the final inside subscribe. */
function trivialTool(name: string): Tool {
  const event: ToolEvent = { final: true, result: { output: 'ok' } };
  return { name, description: 'Returns ok.', execute: () => of(event) };
}

/** The typed tool's arguments schema and function. */
const echoSchema = z.object({ text: z.string() });
const echo = ({ text }: { text: string }): string => text;

/** The typed counterpart: one string argument, validated and decoded, returned as text. */
const typedTool = tool({
  name: 'echo',
  description: 'Returns its text.',
  parameters: echoSchema,
  execute: echo,
});

/** The six-field tool of scenario 2: the kinds of fields a model's call carries. */
const listTool = tool({
  name: 'list',
  description: 'List a directory.',
  parameters: listSchema,
  execute: list,
});

/** The floor of a typed call's work, by hand: `JSON.parse`, zod's parse, the function. */
function byHand<A>(
  jobs: readonly Job[],
  schema: { parse(value: unknown): A },
  fn: (args: A) => string,
  expected: string,
): Variant {
  return {
    name: 'JSON.parse+zod+fn',
    calls: jobs.length,
    run: () => {
      let last = '';
      for (let i = 0; i < jobs.length; i++) last = fn(schema.parse(JSON.parse(jobs[i]!.call.args)));
      if (last !== expected) throw new Error('unexpected output');
    },
  };
}

function jobsOf(tools: readonly Tool[], count: number, args: string): Job[] {
  const jobs: Job[] = new Array(count);
  for (let i = 0; i < count; i++)
    jobs[i] = { tool: tools[i % tools.length], call: { id: `call_${i}`, args } };
  return jobs;
}

/** Counts final events; one instance per run, so no side pays for another's state. */
class FinalCounter implements Observer<{ final: boolean }> {
  finals = 0;
  constructor(private readonly done: () => void = () => undefined) {}
  next(event: { final: boolean }): void {
    if (event.final) this.finals++;
  }
  error(err: unknown): void {
    throw err;
  }
  complete(): void {
    this.done();
  }
}

function expectFinals(counter: FinalCounter, count: number): void {
  if (counter.finals !== count) throw new Error(`expected ${count} finals, got ${counter.finals}`);
}

/** Subscribes to `events` and resolves once it completes, having seen exactly `count` finals. */
function allFinals(events: Observable<{ final: boolean }>, count: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const counter = new FinalCounter(() => {
      expectFinals(counter, count);
      resolve();
    });
    events.subscribe(counter);
  });
}

/** The four sides over `jobs`, each passing `context` where a context is the caller's to give. */
export function executorVariants(jobs: readonly Job[], context: CallContext): Variant[] {
  const n = jobs.length;
  const run = (job: Job) => job.tool.execute(job.call, context);
  return [
    {
      name: 'executeBatch',
      calls: n,
      run: () => allFinals(executeBatch(jobs, { maxParallel: 8 }), n),
    },
    {
      name: 'mergeMap(8)',
      calls: n,
      run: () => allFinals(from(jobs).pipe(mergeMap(run, 8)), n),
    },
    {
      name: 'promise pool(8)',
      calls: n,
      run: async () => {
        let next = 0;
        let finals = 0;
        const one = (job: Job) =>
          new Promise<void>((resolve, reject) => {
            run(job).subscribe({
              next: (event) => {
                if (event.final) {
                  finals++;
                  resolve();
                }
              },
              error: reject,
            });
          });
        const worker = async () => {
          while (next < n) await one(jobs[next++]);
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        if (finals !== n) throw new Error(`expected ${n} finals, got ${finals}`);
      },
    },
    {
      name: 'plain loop',
      calls: n,
      run: () => {
        const counter = new FinalCounter();
        for (let i = 0; i < n; i++) run(jobs[i]).subscribe(counter);
        expectFinals(counter, n);
      },
    },
  ];
}

function ns(sampled: Sampled) {
  return { label: sampled.name, value: sampled.median, unit: 'ns/call' as const };
}

/** Runs scenario 1 and returns its rows. */
export async function executorScenario(scale: Scale): Promise<Row[]> {
  const count = Math.round(100_000 * scale.size);
  const raw = jobsOf([trivialTool('a'), trivialTool('b'), trivialTool('c')], count, '');
  const typed = jobsOf([typedTool], count, '{"text":"hello"}');
  const fields = jobsOf([listTool], count, ARGS);
  const context = new CallContext({ id: 'shared', args: '' });
  const rows: Row[] = [];
  for (const [label, jobs] of [
    ['raw tool', raw],
    ['typed tool()', typed],
    ['typed tool(), 6 fields', fields],
  ] as const) {
    const variants = executorVariants(jobs, context);
    if (label === 'typed tool()') variants.push(byHand(jobs, echoSchema, echo, 'hello'));
    if (label === 'typed tool(), 6 fields')
      variants.push(byHand(jobs, listSchema, list, '/srv/data size 50'));
    const [ours, mergeMapped, pool, loop, hand] = await interleave(variants, {
      rounds: scale.rounds(label === 'raw tool' ? 15 : 9),
    });
    const scenario = '1 executor';
    const name = `${count / 1000}k calls, ${label}`;
    rows.push(
      row({
        scenario,
        name,
        ours: ns(ours),
        baseline: ns(mergeMapped),
        target: { on: 'ratio', max: 2, text: '<= 2x' },
      }),
      row({ scenario, name, ours: ns(ours), baseline: ns(pool) }),
      label === 'raw tool'
        ? row({
            scenario,
            name,
            ours: ns(ours),
            baseline: ns(loop),
            target: { on: 'ratio', max: 1.6, text: '<= 1.6x' },
          })
        : row({ scenario, name, ours: ns(ours), baseline: ns(loop) }),
    );
    // The six-field tool is the typed target's measure: a one-string call's work by hand is
    // mostly JSON.parse, so the engine's own per-call cost (a run, a context, an event) is most of
    // its ratio (BENCHMARKS.md, The engine's floors).
    if (hand !== undefined)
      rows.push(
        row({
          scenario,
          name,
          ours: ns(ours),
          baseline: ns(hand),
          ...(label === 'typed tool(), 6 fields'
            ? { target: { on: 'ratio', max: 1.35, text: '<= 1.35x' } as const }
            : {}),
        }),
      );
  }
  return rows;
}
