/**
 * Tools that run in the page, and a model turn that calls them: one reports progress, one takes
 * long enough to cancel, one call has arguments the schema refuses, one changes something (so it
 * waits for a person's approval), one asks the person a question, and one sends them to a page.
 */
import * as z from 'zod';
import { tool, ToolSet, type OutputItem } from 'agenttool';

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export const countTo = tool({
  name: 'count_to',
  description: 'Counts from 1 to `to`, one step every `every_ms`, reporting progress.',
  parameters: z.object({
    to: z.number().int().min(1).max(100),
    every_ms: z.number().int().min(10).max(2000).default(150),
  }),
  annotations: { readOnlyHint: true },
  async *execute({ to, every_ms }, { signal }) {
    for (let i = 1; i <= to; i++) {
      await pause(every_ms, signal);
      yield { progress: i, total: to, message: `counted ${i} of ${to}` };
    }
    return `counted to ${to}`;
  },
});

export const wait = tool({
  name: 'wait',
  description: 'Waits, then says so.',
  parameters: z.object({ seconds: z.number().positive().max(600) }),
  annotations: { readOnlyHint: true },
  async execute({ seconds }, { signal }) {
    await pause(seconds * 1000, signal);
    return `waited ${seconds} s`;
  },
});

export const greet = tool({
  name: 'greet',
  description: 'Greets someone by name.',
  parameters: z.object({ name: z.string().min(1).describe('Who to greet') }),
  annotations: { readOnlyHint: true },
  execute: ({ name }) => `Hello, ${name}!`,
});

export const deploy = tool({
  name: 'deploy',
  description: 'Deploys a service (pretends to): a change, so it waits for approval.',
  parameters: z.object({ service: z.string().min(1) }),
  execute: ({ service }) => `deployed ${service}`,
});

export const orderPizza = tool({
  name: 'order_pizza',
  description: 'Asks the person what pizza to order, then orders it.',
  parameters: z.object({}),
  annotations: { readOnlyHint: true },
  async execute(_args, context) {
    const answer = await context.elicit({
      message: 'Which pizza?',
      schema: {
        type: 'object',
        properties: {
          size: {
            type: 'string',
            title: 'Size',
            enum: ['small', 'large'],
            enumNames: ['Small', 'Large'],
            default: 'large',
          },
          count: { type: 'integer', title: 'How many', minimum: 1, maximum: 5, default: 1 },
          extras: {
            type: 'array',
            title: 'Extras',
            items: { type: 'string', enum: ['olives', 'basil', 'chili'] },
          },
          name: { type: 'string', title: 'Name on the order' },
        },
        required: ['size', 'count', 'name'],
      },
    });
    if (answer.action !== 'accept') return `no pizza (${answer.action})`;
    const { size, count, extras, name } = answer.content;
    const toppings = Array.isArray(extras) && extras.length > 0 ? ` with ${extras.join(', ')}` : '';
    return `ordered ${count} ${size}${toppings} for ${String(name)}`;
  },
});

export const connectCalendar = tool({
  name: 'connect_calendar',
  description: 'Sends the person to the calendar’s own page to connect it, then goes on.',
  parameters: z.object({}),
  annotations: { readOnlyHint: true },
  async execute(_args, context) {
    // The credential is typed on the calendar's page, never here: a URL question.
    const answer = await context.elicit({
      mode: 'url',
      message: 'Connect your calendar on its own page.',
      url: 'https://calendar.example.com/connect?client=agenttool',
    });
    return answer.action === 'accept' ? 'calendar connected' : `not connected (${answer.action})`;
  },
});

const call = (id: string, name: string, args: object): OutputItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});

/** The function calls of a model turn, as the model wrote them. */
export const PAGE_TURN: readonly OutputItem[] = [
  call('count', 'count_to', { to: 8, every_ms: 150 }),
  call('wait', 'wait', { seconds: 300 }),
  call('greet-bad', 'greet', { name: 42 }),
  call('greet', 'greet', { name: 'Ada' }),
  call('deploy-api', 'deploy', { service: 'api' }),
  call('deploy-db', 'deploy', { service: 'db' }),
  call('pizza', 'order_pizza', {}),
  call('calendar', 'connect_calendar', {}),
];

/** The page's tools, as the turn's calls name them. */
export const pageTools = new ToolSet([countTo, wait, greet, deploy, orderPizza, connectCalendar]);
