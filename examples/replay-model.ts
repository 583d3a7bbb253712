/**
 * A loopback model provider for the real `openai` and `@anthropic-ai/sdk` clients: each request
 * gets the next recorded stream, written as server-sent events, and its JSON body is kept, so a
 * test or an example sees what the client sent each turn. No network beyond 127.0.0.1.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded event: its SSE `event:` name (omitted for Chat Completions) and its data. */
export interface RecordedEvent {
  readonly event?: string;
  readonly data: unknown;
}

/** A recorded stream, and whether the connection is cut (destroyed) after its events. */
export interface RecordedStream {
  readonly events: readonly RecordedEvent[];
  readonly breakAfter?: boolean;
  /** Written last when the stream ends normally: Chat Completions' `data: [DONE]`. */
  readonly done?: boolean;
}

export class ReplayModel {
  readonly bodies: unknown[] = [];
  private server: Server | undefined;
  private next = 0;

  constructor(private readonly streams: readonly RecordedStream[]) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        this.bodies.push(body === '' ? undefined : (JSON.parse(body) as unknown));
        const stream = this.streams[this.next++];
        if (stream === undefined) {
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end('{"error":{"message":"no more recorded streams"}}');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const text = stream.events
          .map(
            ({ event, data }) =>
              `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`,
          )
          .join('');
        if (stream.breakAfter === true) {
          // Cut once the events are on the wire: the client reads them, then the connection dies.
          res.write(text, () => setImmediate(() => res.socket?.destroy()));
          return;
        }
        res.write(text);
        if (stream.done === true) res.write('data: [DONE]\n\n');
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Responses events, each with its SSE event name. */
export function responsesEvents(
  events: readonly { type: string; [key: string]: unknown }[],
): RecordedEvent[] {
  let sequence = 0;
  return events.map((data) => ({
    event: data.type,
    data: { ...data, sequence_number: sequence++ },
  }));
}

/** Anthropic events, each with its SSE event name. */
export function anthropicEvents(
  events: readonly { type: string; [key: string]: unknown }[],
): RecordedEvent[] {
  return events.map((data) => ({ event: data.type, data }));
}
