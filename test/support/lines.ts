import type { Readable, Stream } from 'node:stream';

/** A stream's text as it arrives, and a wait for one of its lines. */
export interface Lines {
  /** Resolves with the first line that starts with `prefix`, once it has arrived. */
  seen(prefix: string): Promise<string>;
  /** Everything read so far. */
  text(): string;
}

/** Collects `stream`'s text from now on (a child's stdout or stderr). */
export function lines(stream: Readable | Stream): Lines {
  let text = '';
  const waiters: (() => void)[] = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    text: () => text,
    seen: (prefix) =>
      new Promise((resolve) => {
        const check = (): void => {
          const line = text.split('\n').find((l) => l.startsWith(prefix));
          if (line !== undefined) resolve(line);
          else waiters.push(check);
        };
        check();
      }),
  };
}
