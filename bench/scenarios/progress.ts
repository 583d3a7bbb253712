/**
 * Scenario 4, progress throughput: one call emitting 1M progress events, then its final, through
 * `executeBatch`, against subscribing to the same tool's observable directly. Two tools: a Tool
 * written by hand that emits ToolEvents, and a `tool()` whose function reports through
 * `context.progress`.
 *
 * @module
 */
import { Observable } from 'rxjs';
import { executeBatch, tool, type Job } from '../../index.js';
import { CallContext } from '../../lib/context.js';
import type { Tool, ToolEvent } from '../../lib/contract.js';
import { interleave, type Variant } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

function eventTool(count: number): Tool {
  const progress: ToolEvent = { final: false, result: { output: 'step' } };
  const final: ToolEvent = { final: true, result: { output: 'done' } };
  return {
    name: 'steps',
    description: 'Emits progress events, then its result.',
    execute: () =>
      new Observable<ToolEvent>((subscriber) => {
        for (let i = 0; i < count && !subscriber.closed; i++) subscriber.next(progress);
        subscriber.next(final);
        subscriber.complete();
      }),
  };
}

function reportingTool(count: number): Tool {
  const info = { progress: 0, total: count, message: 'step' };
  return tool({
    name: 'report',
    description: 'Reports progress through its context, then returns.',
    execute: (_args, context) => {
      for (let i = 0; i < count; i++) context.progress(info);
      return 'done';
    },
  });
}

/** Counts every event; throws unless exactly `events` events and one final were seen. */
function counting(events: number, done: () => void) {
  let seen = 0;
  let finals = 0;
  return {
    next(event: { final: boolean }) {
      seen++;
      if (event.final) finals++;
    },
    error(err: unknown) {
      throw err;
    },
    complete() {
      if (seen !== events + 1 || finals !== 1)
        throw new Error(`saw ${seen} events, ${finals} finals`);
      done();
    },
  };
}

function variants(tool: Tool, events: number): Variant[] {
  const job: Job = { tool, call: { id: 'call_1', args: '' } };
  const context = new CallContext(job.call);
  return [
    {
      name: 'executeBatch',
      calls: events,
      run: () =>
        new Promise<void>((resolve) => executeBatch([job]).subscribe(counting(events, resolve))),
    },
    {
      name: 'tool.execute',
      calls: events,
      run: () =>
        new Promise<void>((resolve) =>
          tool.execute(job.call, context).subscribe(counting(events, resolve)),
        ),
    },
  ];
}

/** Runs scenario 4 and returns its rows. */
export async function progressScenario(scale: Scale): Promise<Row[]> {
  const events = Math.round(1_000_000 * scale.size);
  const rows: Row[] = [];
  for (const [label, subject] of [
    ['ToolEvents from a Tool', eventTool(events)],
    ['context.progress in tool()', reportingTool(events)],
  ] as const) {
    const [ours, direct] = await interleave(variants(subject, events), { rounds: scale.rounds(9) });
    rows.push(
      row({
        scenario: '4 progress',
        name: `${events / 1e6}M events of one call, ${label}`,
        ours: { label: ours.name, value: 1e9 / ours.median, unit: 'events/s' },
        baseline: { label: direct.name, value: 1e9 / direct.median, unit: 'events/s' },
        target: { on: 'ours', min: 1e6, text: '>= 1M events/s' },
      }),
    );
  }
  return rows;
}
