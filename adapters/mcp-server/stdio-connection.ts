/**
 * The connection of a server on this process's stdin and stdout, both eras of MCP (the SDK's
 * `serveStdio`), and its end: stdin ending (the client went away) or `close()`. It loads the SDK
 * and nothing of the engine: `agenttool serve` answers `initialize` through it before the engine
 * is loaded (cli/serve-bundled.ts).
 *
 * @module
 */
import { PassThrough, type Readable } from 'node:stream';
import { serveStdio as serveEras, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Server } from '@modelcontextprotocol/server';
import type { McpStdioServer } from './serve-stdio.js';

/**
 * Serves the Server `factory` makes (once, when the opening message has picked the connection's
 * era) on stdin and stdout, until stdin ends or `close()`.
 *
 * `pending`, when given, is work that requests read before stdin ended may wait on (a module being
 * loaded): when stdin ends, the connection sees the end only once that work is done and one turn
 * of the event loop has passed, so that those requests are answered first.
 */
export function connectStdio(
  factory: () => Server | Promise<Server>,
  pending?: () => Promise<unknown> | undefined,
): McpStdioServer {
  const stdin = process.stdin;
  const input = pending === undefined ? stdin : heldEnd(stdin, pending);
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const handle = serveEras(factory, {
    transport: new StdioServerTransport(input, process.stdout),
    onerror: () => undefined,
  });
  const close = async (): Promise<void> => {
    input.off('end', end);
    input.off('close', end);
    await handle.close().catch(() => undefined);
    if (input !== stdin) stdin.destroy();
    ended();
  };
  const end = (): void => void close();
  input.on('end', end);
  input.on('close', end);
  return { closed, close };
}

/** `stdin`'s data, ending once `pending()`'s work is done after `stdin` ended (see connectStdio). */
function heldEnd(stdin: Readable, pending: () => Promise<unknown> | undefined): Readable {
  const input = new PassThrough();
  stdin.pipe(input, { end: false });
  stdin.once('end', () => {
    void Promise.resolve(pending())
      .catch(() => undefined)
      .then(() => new Promise((turned) => setImmediate(turned)))
      .then(() => input.end());
  });
  return input;
}
