/**
 * Scenario 13, the model loop: how long after the model has finished writing a call its tool
 * starts, through `agentLoop`, against the loop users write by hand that waits for the whole
 * response before it runs the calls. The model is an AsyncIterable of Responses events, as the
 * `openai` client yields them: a call, then 50 ms more of text. Its wire rows (a turn's events as
 * server-sent events, against a writer by hand) are in wire-encoding.ts.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { lastValueFrom, toArray } from 'rxjs';
import {
  agentLoop,
  executeBatch,
  jobsFromItems,
  tool,
  ToolSet,
  type OutputItem,
  type ResponsesStreamEvent,
} from '../../index.js';
import { median } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';
import { wireEncodingRows } from './wire-encoding.js';

const TEXT_AFTER_CALL = 10;
const TEXT_GAP_MS = 5;

/** A stream whose call is whole at `marks.done`, followed by text for about 50 ms. */
async function* stream(marks: { done: number }): AsyncGenerator<ResponsesStreamEvent> {
  const item = {
    type: 'function_call',
    call_id: 'c1',
    name: 'probe',
    arguments: '{}',
  } as OutputItem;
  yield { type: 'response.output_item.added', item: { ...item, arguments: '' } as OutputItem };
  yield { type: 'response.function_call_arguments.delta', item_id: 'c1', delta: '{}' };
  marks.done = performance.now();
  yield { type: 'response.output_item.done', item };
  for (let i = 0; i < TEXT_AFTER_CALL; i++) {
    await sleep(TEXT_GAP_MS);
    yield { type: 'response.output_text.delta', item_id: 'm1', delta: 'more text ' };
  }
}

/** One delay per round, in ms, from the call's last piece to its tool starting. */
async function delays(
  rounds: number,
  run: (tools: ToolSet, marks: { done: number }) => Promise<void>,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const marks = { done: 0 };
    let started = 0;
    const probe = tool({
      name: 'probe',
      description: 'Notes when it starts',
      execute: () => {
        started = performance.now();
        return 'ok';
      },
    });
    await run(new ToolSet([probe]), marks);
    out.push(started - marks.done);
  }
  return out;
}

/** agentLoop: one turn with the call, one without. */
async function viaLoop(tools: ToolSet, marks: { done: number }): Promise<void> {
  let turn = 0;
  await lastValueFrom(
    agentLoop({
      model: () => (turn++ === 0 ? stream(marks) : (async function* () {})()),
      tools,
      input: [],
    }).pipe(toArray()),
  );
}

/** By hand: read the whole response, then run its calls. */
async function byHand(tools: ToolSet, marks: { done: number }): Promise<void> {
  const items: OutputItem[] = [];
  for await (const event of stream(marks)) {
    if (event.type === 'response.output_item.done')
      items.push((event as { item: OutputItem }).item);
  }
  await lastValueFrom(executeBatch(jobsFromItems(items, tools)).pipe(toArray()));
}

/** Runs scenario 13 and returns its rows. */
export async function modelLoopScenario(scale: Scale): Promise<Row[]> {
  const rounds = scale.rounds(40);
  const ours = median(await delays(rounds, viaLoop));
  const baseline = median(await delays(rounds, byHand));
  return [
    row({
      scenario: '13 model loop',
      name: `a call's start after its last argument delta, then ${TEXT_AFTER_CALL * TEXT_GAP_MS} ms more of the stream (median of ${rounds})`,
      ours: { label: 'agentLoop', value: ours, unit: 'ms' },
      baseline: { label: 'whole response, then executeBatch', value: baseline, unit: 'ms' },
      target: { on: 'ours', max: 1, text: '<= 1 ms' },
    }),
    ...(await wireEncodingRows(scale)),
  ];
}
