/**
 * A Node agent on the `openai` SDK: agentLoop asks the model, runs each call the moment the model
 * has written it, and sends the results back until the model answers in words.
 *
 *   node --import tsx examples/agent-loop.ts            # a recorded conversation, replayed on loopback
 *   OPENAI_API_KEY=... node --import tsx examples/agent-loop.ts "What is 17 * 23, and the weather in Oslo?"
 *
 * Without OPENAI_API_KEY the client talks to a loopback server that replays a recorded
 * conversation (examples/replay-model.ts), so the example runs offline, as `npm test` runs it.
 *
 * @module
 */
import OpenAI from 'openai';
import { z } from 'zod';
import { agentLoop, tool, ToolSet, type LoopEvent, type ResponsesItem } from '../index.js';
import { ReplayModel, responsesEvents } from './replay-model.js';

const tools = new ToolSet([
  tool({
    name: 'multiply',
    description: 'Multiplies two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a * b),
  }),
  tool({
    name: 'weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }, context) => {
      context.progress({ progress: 1, total: 2, message: `asking the station in ${city}` });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return `light snow in ${city}, -3 °C`;
    },
  }),
]);

const live = process.env['OPENAI_API_KEY'] !== undefined;
const replay = live ? undefined : new ReplayModel(recorded());
const client = new OpenAI({
  apiKey: process.env['OPENAI_API_KEY'] ?? 'replayed',
  ...(replay === undefined ? {} : { baseURL: await replay.start(), maxRetries: 0 }),
});
const question = process.argv[2] ?? 'What is 17 * 23, and the weather in Oslo?';
const started = performance.now();
const ms = (): string => `${Math.round(performance.now() - started)} ms`.padStart(7);

agentLoop({
  model: (input, signal) =>
    client.responses.create(
      {
        model: process.env['OPENAI_MODEL'] ?? 'gpt-5-mini',
        input: input as OpenAI.Responses.ResponseInput,
        tools: tools.definitions(),
        stream: true,
      },
      { signal },
    ),
  tools,
  input: [{ role: 'user', content: question }] satisfies ResponsesItem[],
  maxParallel: 4,
}).subscribe({
  next: show,
  error: (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
  complete: () => void replay?.stop(),
});

function show(event: LoopEvent): void {
  switch (event.type) {
    case 'turn-start':
      return console.log(`${ms()}  turn ${event.turn}`);
    case 'text-delta':
      process.stdout.write(event.delta);
      return;
    case 'call':
      return console.log(`${ms()}  call ${event.call.name} ${event.call.arguments}`);
    case 'call-event': {
      const { event: e, call } = event;
      if (e.question !== undefined) return;
      const said = e.error === undefined ? JSON.stringify(e.result.output) : e.error.message;
      return console.log(`${ms()}  ${call.name}${e.final ? ' ->' : ':'} ${said}`);
    }
    case 'loop-end':
      return console.log(`\n${ms()}  ${event.reason} after ${event.turns} turns`);
  }
}

/** The conversation replayed without a key: two calls in one turn, then the answer. */
function recorded() {
  const call = (index: number, id: string, name: string, args: string) => {
    const item = {
      type: 'function_call',
      id: `fc_${id}`,
      call_id: id,
      name,
      arguments: args,
      status: 'completed',
    };
    return [
      {
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      },
      {
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: index,
        delta: args,
      },
      { type: 'response.output_item.done', output_index: index, item },
    ];
  };
  const text = (delta: string) => ({
    type: 'response.output_text.delta',
    item_id: 'msg_2',
    output_index: 0,
    content_index: 0,
    delta,
  });
  const completed = { type: 'response.completed', response: { status: 'completed', output: [] } };
  return [
    {
      events: responsesEvents([
        ...call(0, 'c1', 'multiply', '{"a":17,"b":23}'),
        ...call(1, 'c2', 'weather', '{"city":"Oslo"}'),
        completed,
      ]),
    },
    {
      events: responsesEvents([
        text('17 × 23 = 391. '),
        text('In Oslo: light snow, -3 °C.'),
        completed,
      ]),
    },
  ];
}
