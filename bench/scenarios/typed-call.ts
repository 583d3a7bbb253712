/**
 * Scenario 2, typed call overhead: one call of a `tool()` with a 6-field zod schema (validation
 * against the schema the model saw, decoding, the function, its output as a result) against what
 * a hand-written tool does with the same schema: `JSON.parse`, `schema.parse`, the function.
 *
 * @module
 */
import { lastValueFrom, type Observer } from 'rxjs';
import { z } from 'zod';
import {
  executeBatch,
  tool,
  type ExecutionEvent,
  type Job,
  type Tool,
  type ToolCall,
} from '../../index.js';
import { CallContext } from '../../lib/context.js';
import type { ToolEvent, ToolResult } from '../../lib/contract.js';
import { interleave, type Sampled } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

/** Six fields of the kinds tools take: a string, an enum, a bounded integer, a flag, a list, an optional. */
export const listSchema = z.object({
  path: z.string().describe('Directory to list'),
  order: z.enum(['name', 'size', 'time']),
  limit: z.number().int().min(1).max(1000),
  recursive: z.boolean(),
  include: z.array(z.string()),
  note: z.string().optional(),
});

type ListArgs = z.output<typeof listSchema>;

/** The work both sides run once the arguments are in hand. */
export function list(args: ListArgs): string {
  return `${args.path} ${args.order} ${args.limit}`;
}

/** The raw arguments of every call, as a model would write them. */
export const ARGS = JSON.stringify({
  path: '/srv/data',
  order: 'size',
  limit: 50,
  recursive: true,
  include: ['*.json', '*.csv'],
  note: 'largest first',
});

/** Keeps the last result so no side's work can be optimised away. */
class LastResult implements Observer<ToolEvent> {
  result: ToolResult | undefined;
  next(event: ToolEvent): void {
    if (event.final) this.result = event.result;
  }
  error(err: unknown): void {
    throw err;
  }
  complete(): void {}
}

/** Runs scenario 2 and returns its rows. */
export async function typedCallScenario(scale: Scale): Promise<Row[]> {
  const typed = tool({
    name: 'list',
    description: 'List a directory.',
    parameters: listSchema,
    execute: list,
  });
  const count = Math.round(50_000 * scale.size);
  const call = { id: 'call_1', args: ARGS };
  const context = new CallContext(call);
  // The call alone, and as a batch of one through executeBatch with everything a batch sets up,
  // against the same work by hand, in the same rounds.
  const jobs = [{ tool: typed, call }];
  // One call awaited, as an application awaits a single call: `lastValueFrom` of its batch,
  // against the same work by hand in an async function, awaited. Fewer calls: each is a turn of
  // the microtask queue on both sides.
  const awaitedCount = Math.max(1, Math.round(count / 5));
  const [awaited, awaitedByHand] = await awaitedSamples(jobs, call, awaitedCount, scale);
  const [ours, batched, baseline] = await inTurnSamples(typed, jobs, context, count, scale);
  return rowsOf(awaited!, awaitedByHand!, ours!, batched!, baseline!);
}

/** One call awaited: `lastValueFrom` of its batch, against the same work by hand, awaited. */
async function awaitedSamples(
  jobs: Job[],
  call: ToolCall,
  awaitedCount: number,
  scale: Scale,
): Promise<Sampled[]> {
  return interleave(
    [
      {
        name: 'lastValueFrom(executeBatch)',
        calls: awaitedCount,
        run: async () => {
          let last: ExecutionEvent | undefined;
          for (let i = 0; i < awaitedCount; i++) last = await lastValueFrom(executeBatch(jobs));
          if (last?.final !== true || last.result?.output !== '/srv/data size 50')
            throw new Error('unexpected output');
        },
      },
      {
        name: 'async JSON.parse+zod',
        calls: awaitedCount,
        run: async () => {
          const byHand = async (args: string): Promise<ToolResult> => ({
            output: list(listSchema.parse(JSON.parse(args))),
          });
          let result: ToolResult | undefined;
          for (let i = 0; i < awaitedCount; i++) result = await byHand(call.args);
          if (result?.output !== '/srv/data size 50') throw new Error('unexpected output');
        },
      },
    ],
    { rounds: scale.rounds(25) },
  );
}

/** The call alone, and as a batch of one, against the same work by hand, nothing awaited. */
async function inTurnSamples(
  typed: Tool,
  jobs: Job[],
  context: CallContext,
  count: number,
  scale: Scale,
): Promise<Sampled[]> {
  const call = jobs[0]!.call;
  return interleave(
    [
      {
        name: 'tool()',
        calls: count,
        run: () => {
          const sink = new LastResult();
          for (let i = 0; i < count; i++) typed.execute(call, context).subscribe(sink);
          if (sink.result?.output !== '/srv/data size 50') throw new Error('unexpected output');
        },
      },
      {
        name: 'executeBatch of one',
        calls: count,
        run: () => {
          let last: ExecutionEvent | undefined;
          for (let i = 0; i < count; i++) executeBatch(jobs).subscribe((event) => (last = event));
          if (last?.final !== true || last.result?.output !== '/srv/data size 50')
            throw new Error('unexpected output');
        },
      },
      {
        name: 'JSON.parse+zod',
        calls: count,
        run: () => {
          let result: ToolResult | undefined;
          for (let i = 0; i < count; i++) {
            result = { output: list(listSchema.parse(JSON.parse(call.args))) };
          }
          if (result?.output !== '/srv/data size 50') throw new Error('unexpected output');
        },
      },
    ],
    { rounds: scale.rounds(25) },
  );
}

/** The scenario's rows. */
function rowsOf(
  awaited: Sampled,
  awaitedByHand: Sampled,
  ours: Sampled,
  batched: Sampled,
  baseline: Sampled,
): Row[] {
  return [
    row({
      scenario: '2 typed call',
      name: '6-field zod schema, one call in a batch',
      ours: { label: batched.name, value: batched.median, unit: 'ns/call' },
      baseline: { label: baseline.name, value: baseline.median, unit: 'ns/call' },
      target: { on: 'ratio', max: 1.6, text: '<= 1.6x' },
    }),
    // The target against the work by hand with nothing awaited, the stricter of the two.
    row({
      scenario: '2 typed call',
      name: '6-field zod schema, one call awaited',
      ours: { label: awaited.name, value: awaited.median, unit: 'ns/call' },
      baseline: { label: baseline.name, value: baseline.median, unit: 'ns/call' },
      target: { on: 'ratio', max: 2, text: '<= 2x' },
    }),
    row({
      scenario: '2 typed call',
      name: '6-field zod schema, one call awaited',
      ours: { label: awaited.name, value: awaited.median, unit: 'ns/call' },
      baseline: { label: awaitedByHand.name, value: awaitedByHand.median, unit: 'ns/call' },
    }),
    row({
      scenario: '2 typed call',
      name: '6-field zod schema, one call',
      ours: { label: ours.name, value: ours.median, unit: 'ns/call' },
      baseline: { label: baseline.name, value: baseline.median, unit: 'ns/call' },
      target: { on: 'ratio', max: 1.5, text: '<= 1.5x' },
    }),
  ];
}
