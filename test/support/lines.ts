import type { Readable, Stream } from 'node:stream';
import { lastLines, scaled } from './time.js';

/** A stream's text as it arrives, and a wait for one of its lines. */
export interface Lines {
  /**
   * Resolves with the first line that starts with `prefix`, once it has arrived; rejects, saying
   * what it waited for and the last lines it saw, after `within` ms (scaled for this machine).
   */
  seen(prefix: string, within?: number): Promise<string>;
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
    seen: (prefix, within = 15_000) =>
      new Promise((resolve, reject) => {
        const ceiling = scaled(within);
        const timer = setTimeout(() => {
          reject(
            new Error(
              `no line starting ${JSON.stringify(prefix)} within ${ceiling} ms; last lines:\n${lastLines(text)}`,
            ),
          );
        }, ceiling);
        timer.unref();
        const check = (): void => {
          const line = text.split('\n').find((l) => l.startsWith(prefix));
          if (line !== undefined) {
            clearTimeout(timer);
            resolve(line);
          } else waiters.push(check);
        };
        check();
      }),
  };
}
