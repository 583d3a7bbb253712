import { CallContext, type CallContextOptions, type Tool, type ToolEvent } from '../../index.js';

/** Runs one call of `tool` to the end: every event, and the error its observable ended with. */
export function runTool(
  tool: Tool,
  args: string | object = '',
  options: CallContextOptions = {},
): Promise<{ events: ToolEvent[]; error?: unknown }> {
  const call = { id: 'c1', args: typeof args === 'string' ? args : JSON.stringify(args) };
  const events: ToolEvent[] = [];
  return new Promise((resolve) => {
    tool.execute(call, new CallContext(call, options)).subscribe({
      next: (event) => events.push(event),
      error: (error: unknown) => resolve({ events, error }),
      complete: () => resolve({ events }),
    });
  });
}

/** The final output of a call that must succeed. */
export async function outputOf(tool: Tool, args: string | object = ''): Promise<unknown> {
  const { events, error } = await runTool(tool, args);
  if (error !== undefined) throw error;
  const last = events.at(-1);
  if (last?.final !== true) throw new Error('no final event');
  return last.result.output;
}
