/**
 * What the wire tests share to hand a loop's stream to the fronts' own readers: an Observable as
 * the web stream the AI SDK reads, an AG-UI agent that replays given events, and the messages an
 * AG-UI client keeps for a tool call.
 */
import { AbstractAgent } from '@ag-ui/client';
import type { Observable } from 'rxjs';
import type { AgUiEvent } from '../../adapters/wire/index.js';

/** An Observable as the ReadableStream the AI SDK's readers take; cancelling unsubscribes. */
export function readable<T>(events$: Observable<T>): ReadableStream<T> {
  let stop = (): void => {};
  return new ReadableStream<T>({
    start(controller) {
      const subscription = events$.subscribe({
        next: (value) => controller.enqueue(value),
        error: (error: unknown) => controller.error(error),
        complete: () => controller.close(),
      });
      stop = () => subscription.unsubscribe();
    },
    cancel: () => stop(),
  });
}

/** An agent whose run is the given events: `runAgent` verifies and applies them as any agent's. */
export class ReplayAgent extends AbstractAgent {
  constructor(
    private readonly events$: Observable<AgUiEvent>,
    threadId: string,
  ) {
    super({ threadId });
  }
  run(): never {
    return this.events$ as never;
  }
}

/** A tool call as an AG-UI client keeps it on its assistant message. */
export const toolCall = (id: string, name: string, args: string) => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

/** A tool call's result as an AG-UI client keeps it: a message of its own. */
export const toolMessage = (id: string, content: string) => ({
  id: `${id}-result`,
  role: 'tool',
  toolCallId: id,
  content,
});
