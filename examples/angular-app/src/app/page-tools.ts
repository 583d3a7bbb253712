/**
 * Tools that run in the page, and a model turn that calls them: one reports progress, one takes
 * long enough to cancel, and one call has arguments the schema refuses.
 */
import { z } from 'zod';
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
  async execute({ seconds }, { signal }) {
    await pause(seconds * 1000, signal);
    return `waited ${seconds} s`;
  },
});

export const greet = tool({
  name: 'greet',
  description: 'Greets someone by name.',
  parameters: z.object({ name: z.string().min(1).describe('Who to greet') }),
  execute: ({ name }) => `Hello, ${name}!`,
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
];

/** The page's tools, as the turn's calls name them. */
export const pageTools = new ToolSet([countTo, wait, greet]);
