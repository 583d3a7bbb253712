/**
 * A model loop served over HTTP, for the wire encoders' tests (test/wire/): a node:http server
 * per test that pipes a loop into each response, and what a loop sees when its client goes away.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { finalize, NEVER, type Observable, Subject } from 'rxjs';
import type { LoopEvent } from '../../operators/loop-events.js';
import { conversation } from './loop-conversation.js';
import { until } from './until.js';

/**
 * Registers the `afterEach` hook that closes what a test served; returns `serve`, which starts a
 * loopback server whose every request, once its body is read, gets `loop()` through `pipe`, and
 * resolves with the URL of `path` on it.
 */
export function loopServer(
  pipe: (loop$: Observable<LoopEvent>, res: ServerResponse, body: string) => void,
  path: string,
): (loop: () => Observable<LoopEvent>) => Promise<string> {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = undefined;
  });
  return async (loop) => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => pipe(loop(), res, body));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  };
}

/**
 * POSTs `body` to a served loop, reads the first chunk, lets the loop send its first event, then
 * aborts the request and waits until the loop is unsubscribed. Whether it had ended before the
 * abort, and whether anything still observes it after.
 */
export async function disconnected(
  serve: (loop: () => Observable<LoopEvent>) => Promise<string>,
  body: string,
): Promise<{ endedBefore: boolean; observedAfter: boolean }> {
  let ended = false;
  const loop$ = new Subject<LoopEvent>();
  const url = await serve(() => loop$.pipe(finalize(() => (ended = true))));
  const abort = new AbortController();
  const response = await fetch(url, { method: 'POST', body, signal: abort.signal });
  const reader = response.body!.getReader();
  await reader.read(); // the first chunk: the loop is subscribed
  loop$.next(conversation()[0]!);
  const endedBefore = ended;
  abort.abort();
  await until(() => ended, 'the loop being unsubscribed');
  return { endedBefore, observedAfter: loop$.observed };
}

/**
 * Makes `respond`'s Response of a loop that never ends, reads its body's first chunk, then
 * cancels the body. Whether the loop had ended before the cancel, and after it.
 */
export async function cancelledBody(
  respond: (loop$: Observable<LoopEvent>) => Response,
): Promise<{ endedBefore: boolean; endedAfter: boolean }> {
  let ended = false;
  const response = respond(NEVER.pipe(finalize(() => (ended = true))));
  const reader = response.body!.getReader();
  await reader.read(); // the first chunk: the loop is subscribed
  const endedBefore = ended;
  await reader.cancel();
  return { endedBefore, endedAfter: ended };
}
