import { Observable } from 'rxjs';
import { z } from 'zod';
import { rawTool, tool, type Tool, type ToolEvent } from '../../index.js';

/** A typed tool that answers its `text` argument: the plainest call a server can serve. */
export const echo = tool({
  name: 'echo',
  description: 'Echo the text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/**
 * A tool that runs until cancelled, and what a test waits on: `started` once a call runs,
 * `cancelled` once it is unsubscribed. `watch()` starts watching the next call.
 */
export function hangTool(): {
  tool: Tool;
  watch(): { started: Promise<void>; cancelled: Promise<void> };
} {
  let onStart: (() => void) | undefined;
  let onCancel: (() => void) | undefined;
  const hang = rawTool({
    name: 'hang',
    description: 'Runs until cancelled.',
    execute: () =>
      new Observable<ToolEvent>(() => {
        onStart?.();
        return () => onCancel?.();
      }),
  });
  return {
    tool: hang,
    watch: () => ({
      started: new Promise<void>((resolve) => (onStart = resolve)),
      cancelled: new Promise<void>((resolve) => (onCancel = resolve)),
    }),
  };
}

/** A tool that answers with the session its call belongs to (`null` for none). */
export const whoAmI = rawTool({
  name: 'who_am_i',
  description: 'Says which session the call belongs to.',
  execute: (_call, context) =>
    new Observable<ToolEvent>((subscriber) => {
      subscriber.next({
        final: true,
        result: { output: JSON.stringify({ session: context.session ?? null }) },
      });
      subscriber.complete();
    }),
});
