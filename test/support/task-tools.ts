/**
 * The task tools the MCP tasks tests serve (test/mcp/tasks/): a gate that waits for the test, a
 * question asked under way, a question asked before the work, a failure and a contract break.
 */
import { EMPTY } from 'rxjs';
import { z } from 'zod';
import { rawTool, tool, type Tool } from '../../index.js';

/** The `gate` tool, and what its calls leave for a test. */
export interface Gate {
  readonly tool: Tool;
  /** Each call's signal, by label. */
  readonly signals: Map<string, AbortSignal>;
  /** What lets each call through, by label. */
  readonly gates: Map<string, () => void>;
  /** How many calls have started. */
  readonly calls: number;
}

/**
 * `gate`, a task tool that reports progress (`message` of its label, of `total` when given),
 * then waits until the test lets it through (`gates`) or it is cancelled.
 */
export function gateTool(message: (label: string) => string, total?: number): Gate {
  let calls = 0;
  const signals = new Map<string, AbortSignal>();
  const gates = new Map<string, () => void>();
  const gate = tool({
    name: 'gate',
    description: 'Reports progress, then waits until the test opens it.',
    parameters: z.object({ label: z.string() }),
    task: true,
    async *execute({ label }, context) {
      calls++;
      signals.set(label, context.signal);
      yield { progress: 1, ...(total === undefined ? {} : { total }), message: message(label) };
      await new Promise<void>((resolve, reject) => {
        gates.set(label, resolve);
        context.signal.addEventListener('abort', () => reject(context.signal.reason as Error));
      });
      return `through the gate: ${label}`;
    },
  });
  return {
    tool: gate,
    signals,
    gates,
    get calls() {
      return calls;
    },
  };
}

/**
 * `ask`, a task tool that asks for a name once under way, then greets; `confirm`
 * (`confirm_then_work`), one that asks first (in the request), then reports progress and answers
 * `worked`, or `stopped` when not told to go. With `keyed`, their questions carry the keys `who`
 * and `go`.
 */
export function askingTools(keyed: boolean): { ask: Tool; confirm: Tool } {
  const key = (name: string) => (keyed ? { key: name } : {});
  return {
    ask: tool({
      name: 'ask',
      description: 'Asks for a name, then greets.',
      parameters: z.object({}),
      task: true,
      execute: async (_args, context) => {
        // Under way first: the question comes through the task.
        await new Promise((resolve) => setTimeout(resolve, 10));
        const answer = await context.elicit({
          ...key('who'),
          message: 'Who are you?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        return answer.action === 'accept'
          ? `Hello, ${String(answer.content.name)}!`
          : answer.action;
      },
    }),
    confirm: tool({
      name: 'confirm_then_work',
      description: 'Asks first (in the request), then works as a task.',
      parameters: z.object({}),
      task: true,
      async *execute(_args, context) {
        const answer = await context.elicit({
          ...key('go'),
          message: 'Go ahead?',
          schema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
        });
        if (answer.action !== 'accept' || answer.content.go !== true) return 'stopped';
        yield { progress: 1, message: 'working after the go' };
        await new Promise((resolve) => setTimeout(resolve, 30));
        return 'worked';
      },
    }),
  };
}

/** `fails`, a task tool that throws `no luck`, and `broken`, one that ends without a result. */
export function failingTools(): Tool[] {
  return [
    tool({
      name: 'fails',
      description: 'Fails as a tool fails.',
      parameters: z.object({}),
      task: true,
      execute: () => {
        throw new Error('no luck');
      },
    }),
    rawTool({
      name: 'broken',
      description: 'Ends without a result: a contract break.',
      parameters: { type: 'object' },
      task: true,
      execute: () => EMPTY,
    }),
  ];
}
