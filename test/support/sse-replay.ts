/**
 * A loopback HTTP server that answers every POST with a recorded SSE stream from
 * test/fixtures/provider-streams/, for the real `openai` and `@anthropic-ai/sdk` clients (their
 * `baseURL` pointed at it). It can break the stream mid-event (the socket destroyed) or hold it
 * open at a point until the test lets it go on.
 */
import { createServer, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/** How to replay a fixture. */
export interface Replay {
  /** The fixture's file name, under test/fixtures/provider-streams/. */
  file: string;
  /** Send the stream up to the middle of the first event holding this text, then destroy the socket. */
  breakInside?: string;
  /** Send the stream up to the end of the first event holding this text, then wait for `resume()`. */
  holdAfter?: string;
}

export interface SseReplay {
  /** The server's root URL: `http://127.0.0.1:<port>`. */
  url: string;
  /** The JSON bodies of the requests it answered, in order. */
  bodies: unknown[];
  /** Sends the rest of a held stream. */
  resume(): void;
  /** Resolves when a client drops its connection before the stream ended. */
  dropped: Promise<void>;
  close(): Promise<void>;
}

const folder = new URL('../fixtures/provider-streams/', import.meta.url);

/** The text of fixture `file`. */
export function fixture(file: string): string {
  return readFileSync(new URL(file, folder), 'utf8');
}

/** Starts a server on a free loopback port replaying `replay` to every POST. */
export async function serveSse(replay: Replay): Promise<SseReplay> {
  const text = fixture(replay.file);
  const bodies: unknown[] = [];
  let resume: () => void = () => undefined;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  let dropped: () => void = () => undefined;
  const droppedOnce = new Promise<void>((resolve) => (dropped = resolve));
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (body += piece));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.on('close', () => {
        if (!res.writableFinished) dropped();
      });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      void send(res, text, replay, resumed);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    resume,
    dropped: droppedOnce,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(
  res: ServerResponse,
  text: string,
  replay: Replay,
  resumed: Promise<void>,
): Promise<void> {
  if (replay.breakInside !== undefined) {
    const event = eventHolding(text, replay.breakInside);
    const cut = event.start + Math.floor((event.end - event.start) / 2);
    res.write(text.slice(0, cut), () => res.socket?.destroy());
    return;
  }
  if (replay.holdAfter !== undefined) {
    const { end } = eventHolding(text, replay.holdAfter);
    res.write(text.slice(0, end));
    await resumed;
    if (res.destroyed) return;
    res.end(text.slice(end));
    return;
  }
  res.end(text);
}

/** Where the first event holding `marker` starts and ends (after its blank line). */
function eventHolding(text: string, marker: string): { start: number; end: number } {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`no event holds ${JSON.stringify(marker)}`);
  const start = text.lastIndexOf('\n\n', at) + 2;
  return { start, end: text.indexOf('\n\n', at) + 2 };
}
