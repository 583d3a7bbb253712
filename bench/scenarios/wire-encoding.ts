/**
 * Scenario 13's wire rows: a turn's events written as server-sent events by `pipeUIMessageStream`
 * and `pipeAgUiEvents`, against a writer by hand that makes the same frames from the same events
 * with one `switch` and no Observable. Both write to the same counting response; the frames are
 * checked equal before anything is timed, so the baseline does the whole job and no more.
 *
 * The turn: text in 200 pieces, a call whose arguments come in 10 pieces, 20 progress updates,
 * its result, then 100 more pieces of text: what a streaming model and a tool that reports
 * progress send in one turn.
 *
 * @module
 */
import { from } from 'rxjs';
import {
  pipeAgUiEvents,
  pipeUIMessageStream,
  type ServerResponseLike,
} from '../../adapters/wire/index.js';
import type { FunctionCallItem } from '../../index.js';
import type { LoopEvent } from '../../operators/loop-events.js';
import { interleave, type Variant } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const call: FunctionCallItem = {
  type: 'function_call',
  call_id: 'call_1',
  name: 'search_notes',
  arguments: '{"query":"quarterly report","limit":10,"folders":["work","archive"]}',
};

/** One turn's events, as `agentLoop` emits them. */
function turnEvents(): LoopEvent[] {
  const events: LoopEvent[] = [{ type: 'turn-start', turn: 1, input: [] }];
  for (let i = 0; i < 200; i++)
    events.push({ type: 'text-delta', turn: 1, id: 'msg_1', delta: `word${i} ` });
  events.push({ type: 'call-start', turn: 1, callId: call.call_id, name: call.name });
  const args = call.arguments;
  for (let i = 0; i < 10; i++) {
    const delta = args.slice((i * args.length) / 10, ((i + 1) * args.length) / 10);
    events.push({ type: 'call-delta', turn: 1, callId: call.call_id, delta });
  }
  events.push({ type: 'call', turn: 1, call });
  for (let i = 1; i <= 20; i++) {
    const result = { output: `searched ${i} of 20`, details: { progress: i, total: 20 } };
    const event = { index: 0, callId: call.call_id, final: false, result } as const;
    events.push({ type: 'call-event', turn: 1, call, event });
  }
  const result = { output: 'found 3 notes: q1.md, q2.md, q3.md' };
  const final = { index: 0, callId: call.call_id, final: true, result } as const;
  events.push({ type: 'call-event', turn: 1, call, event: final });
  for (let i = 0; i < 100; i++)
    events.push({ type: 'text-delta', turn: 1, id: 'msg_2', delta: `more${i} ` });
  events.push({ type: 'turn-end', turn: 1, output: [], calls: 1 });
  events.push({ type: 'loop-end', reason: 'done', turns: 1, items: [] });
  return events;
}

/** A response that keeps nothing but the length written, and the text when asked to. */
class Sink implements ServerResponseLike {
  length = 0;
  text: string[] | undefined;
  writeHead(): void {}
  write(chunk: string): void {
    this.length += chunk.length;
    this.text?.push(chunk);
  }
  end(): void {}
  once(): void {}
}

const frame = (res: Sink, value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);

/** The UI message stream, by hand: the chunks of the events this turn has, as SSE. */
function uiByHand(events: readonly LoopEvent[], res: Sink): void {
  let open: string | undefined;
  const close = () => {
    if (open !== undefined) frame(res, { type: 'text-end', id: open });
    open = undefined;
  };
  frame(res, { type: 'start' });
  for (const e of events) {
    switch (e.type) {
      case 'turn-start':
        frame(res, { type: 'start-step' });
        break;
      case 'text-delta':
        if (open !== e.id) {
          close();
          open = e.id;
          frame(res, { type: 'text-start', id: e.id });
        }
        frame(res, { type: 'text-delta', id: e.id, delta: e.delta });
        break;
      case 'call-start':
        close();
        frame(res, { type: 'tool-input-start', toolCallId: e.callId, toolName: e.name });
        break;
      case 'call-delta':
        frame(res, { type: 'tool-input-delta', toolCallId: e.callId, inputTextDelta: e.delta });
        break;
      case 'call':
        close();
        frame(res, {
          type: 'tool-input-available',
          toolCallId: e.call.call_id,
          toolName: e.call.name,
          input: JSON.parse(e.call.arguments) as unknown,
        });
        break;
      case 'call-event': {
        const head = { type: 'tool-output-available', toolCallId: e.call.call_id };
        const output = e.event.result?.output;
        frame(res, e.event.final ? { ...head, output } : { ...head, output, preliminary: true });
        break;
      }
      case 'turn-end':
        close();
        frame(res, { type: 'finish-step' });
        break;
      case 'loop-end':
        frame(res, { type: 'finish', finishReason: 'stop' });
        break;
    }
  }
  res.write('data: [DONE]\n\n');
}

/** AG-UI, by hand: the events of this turn's kinds, as SSE. */
function agUiByHand(events: readonly LoopEvent[], res: Sink): void {
  const threadId = 't1';
  const runId = 'r1';
  let open: string | undefined;
  let parent: string | undefined;
  const close = () => {
    if (open !== undefined) frame(res, { type: 'TEXT_MESSAGE_END', messageId: open });
    open = undefined;
  };
  frame(res, { type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' });
  for (const e of events) {
    switch (e.type) {
      case 'turn-start':
        parent = undefined;
        frame(res, { type: 'STEP_STARTED', stepName: `turn ${e.turn}` });
        break;
      case 'text-delta':
        if (open !== e.id) {
          close();
          open = e.id;
          parent ??= e.id;
          frame(res, { type: 'TEXT_MESSAGE_START', messageId: e.id, role: 'assistant' });
        }
        frame(res, { type: 'TEXT_MESSAGE_CONTENT', messageId: e.id, delta: e.delta });
        break;
      case 'call-start':
        close();
        frame(res, {
          type: 'TOOL_CALL_START',
          toolCallId: e.callId,
          toolCallName: e.name,
          parentMessageId: (parent ??= `${runId}-turn-${e.turn}`),
        });
        break;
      case 'call-delta':
        frame(res, { type: 'TOOL_CALL_ARGS', toolCallId: e.callId, delta: e.delta });
        break;
      case 'call':
        close();
        frame(res, { type: 'TOOL_CALL_END', toolCallId: e.call.call_id });
        break;
      case 'call-event': {
        const { call_id: toolCallId, name: toolName } = e.call;
        const result = e.event.result!;
        if (e.event.final) {
          frame(res, {
            type: 'TOOL_CALL_RESULT',
            messageId: `${toolCallId}-result`,
            toolCallId,
            content: result.output,
            role: 'tool',
          });
          break;
        }
        const { progress, total } = result.details as { progress: number; total: number };
        frame(res, {
          type: 'ACTIVITY_SNAPSHOT',
          messageId: `${toolCallId}-progress`,
          activityType: 'agenttool.progress',
          content: { toolCallId, toolName, text: result.output, progress, total },
        });
        break;
      }
      case 'turn-end':
        close();
        frame(res, { type: 'STEP_FINISHED', stepName: `turn ${e.turn}` });
        break;
      case 'loop-end':
        frame(res, {
          type: 'RUN_FINISHED',
          threadId,
          runId,
          outcome: { type: 'success' },
          result: { reason: e.reason, turns: e.turns },
        });
        break;
    }
  }
}

type Writer = (events: readonly LoopEvent[], res: Sink) => void;

const ours: Record<'ui' | 'agUi', Writer> = {
  ui: (events, res) => void pipeUIMessageStream(from(events), res),
  agUi: (events, res) => void pipeAgUiEvents(from(events), res, { threadId: 't1', runId: 'r1' }),
};
const byHand: Record<'ui' | 'agUi', Writer> = { ui: uiByHand, agUi: agUiByHand };

/** Throws unless both writers make the same text of `events`. */
function checkSame(events: readonly LoopEvent[], a: Writer, b: Writer, what: string): void {
  const [left, right] = [new Sink(), new Sink()];
  left.text = [];
  right.text = [];
  a(events, left);
  b(events, right);
  if (left.text.join('') !== right.text.join(''))
    throw new Error(`scenario 13: ${what} by hand does not write what the library writes`);
}

/** The wire rows of scenario 13: CPU time per loop event, each protocol against its hand writer. */
export async function wireEncodingRows(scale: Scale): Promise<Row[]> {
  const events = turnEvents();
  const turns = Math.max(1, Math.round(200 * scale.size));
  const sink = new Sink();
  const variant = (name: string, write: Writer): Variant => ({
    name,
    calls: turns * events.length,
    run: () => {
      for (let i = 0; i < turns; i++) write(events, sink);
    },
  });
  const rows: Row[] = [];
  const sides = [
    ['ui', 'UI message stream', 'pipeUIMessageStream'],
    ['agUi', 'AG-UI', 'pipeAgUiEvents'],
  ] as const;
  for (const [key, protocol, name] of sides) {
    checkSame(events, ours[key], byHand[key], protocol);
    const [mine, base] = await interleave(
      [variant(name, ours[key]), variant('a switch by hand', byHand[key])],
      { rounds: scale.rounds(30), warmup: 3 },
    );
    rows.push(
      row({
        scenario: '13 model loop',
        name: `a turn's ${events.length} events to ${protocol} SSE frames, CPU time`,
        ours: { label: mine!.name, value: mine!.cpuMedian, unit: 'ns/event' },
        baseline: { label: base!.name, value: base!.cpuMedian, unit: 'ns/event' },
        target: { on: 'ratio', max: 1.2, text: '<= 1.2x' },
      }),
    );
  }
  return rows;
}
