import { Observable } from 'rxjs';
import { z } from 'zod';
import { rawTool, textResult, tool, type Session, type Tool, type ToolEvent } from '../../index.js';

/** A typed tool that answers its `text` argument: the plainest call a server can serve. */
export const echo = tool({
  name: 'echo',
  description: 'Echo the text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/**
 * A tool that runs until cancelled, and what a test waits on: `started` once a call runs,
 * `cancelled` once it is unsubscribed, `aborted` with its signal's reason once that aborts.
 * `watch()` starts watching the next call.
 */
export function hangTool(): {
  tool: Tool;
  watch(): { started: Promise<void>; cancelled: Promise<void>; aborted: Promise<unknown> };
} {
  let onStart: (() => void) | undefined;
  let onCancel: (() => void) | undefined;
  let onAbort: ((reason: unknown) => void) | undefined;
  const hang = rawTool({
    name: 'hang',
    description: 'Runs until cancelled.',
    execute: (_call, context) =>
      new Observable<ToolEvent>(() => {
        context.signal.addEventListener('abort', () => onAbort?.(context.signal.reason));
        onStart?.();
        return () => onCancel?.();
      }),
  });
  return {
    tool: hang,
    watch: () => ({
      started: new Promise<void>((resolve) => (onStart = resolve)),
      cancelled: new Promise<void>((resolve) => (onCancel = resolve)),
      aborted: new Promise<unknown>((resolve) => (onAbort = resolve)),
    }),
  };
}

/**
 * A tool that counts its calls per client session and answers, as JSON, what `report` makes of
 * the session and its count so far.
 */
export function sessionCounter(
  name: string,
  report: (session: Session, count: number) => object,
): Tool {
  const counts = new Map<string, number>();
  return rawTool({
    name,
    description: 'Counts calls per client session.',
    execute: (_call, context) => {
      const session = context.session!;
      const count = (counts.get(session.id) ?? 0) + 1;
      counts.set(session.id, count);
      return textResult(JSON.stringify(report(session, count)));
    },
  });
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
