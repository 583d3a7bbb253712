/**
 * The stdio client transport: an MCP server started as a child process. Node only, so it lives in
 * its own entry point and `agenttool/mcp/client` stays bundlable for the browser.
 *
 * @module
 */
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/client';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { McpTransport } from '../mcp-client/mcp-transports.js';
import { PendingRequests, repaired } from '../mcp-client/response-faults.js';
import { transportPeers } from '../mcp-shared/mcp-peer.js';

/** A server to start as a child process and talk to over its stdin and stdout. */
export interface StdioServerCommand {
  /** The program to run. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /**
   * Added to the SDK's small default environment (PATH, HOME, ...), not to the whole of ours:
   * pass `{ ...process.env, ...more }` to give the server the user's environment (the CLI does).
   */
  env?: Record<string, string>;
  /** Its working directory (default: ours). */
  cwd?: string;
  /** Where the server's stderr goes (default `inherit`). */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /**
   * Largest message accepted, in bytes (default 10 MiB, the SDK's); a larger one closes the
   * connection and fails the calls waiting on it.
   */
  maxBufferSize?: number;
}

/**
 * The server's stdout cut into lines, in place of the SDK's reader, which parses each line against
 * the JSON-RPC schema and only tells `onerror` of a line that does not match: the request it
 * answered then waits for its timeout. Here a response that does not match becomes an error
 * response for its request (`repaired`), and a line that is not JSON but looks like a response
 * fails the request it names, or every request waiting (`PendingRequests.unparsed`). What it
 * throws goes to the transport's `onerror`, as the SDK's reader's does.
 */
class LineReader {
  private buffer: Buffer | undefined = undefined;
  /** Error responses made from one line that is not JSON, to hand over one by one. */
  private readonly made: JSONRPCMessage[] = [];

  constructor(
    private readonly maxBufferSize: number,
    private readonly pending: PendingRequests,
  ) {}

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.buffer = this.buffer === undefined ? chunk : Buffer.concat([this.buffer, chunk]);
  }

  readMessage(): JSONRPCMessage | null {
    if (this.made.length > 0) return this.made.shift()!;
    const buffer = this.buffer;
    if (buffer === undefined) return null;
    const end = buffer.indexOf('\n');
    if (end === -1) return null;
    const line = buffer.toString('utf8', 0, end).replace(/\r$/, '');
    this.buffer = buffer.subarray(end + 1);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const failed = this.pending.unparsed(line);
      if (failed.length === 0) throw err;
      this.made.push(...failed.slice(1));
      return failed[0]!;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    let message: JSONRPCMessage;
    if (parsed.success) message = parsed.data;
    else {
      message = repaired(value as JSONRPCMessage);
      if (message === value) throw parsed.error;
    }
    this.pending.received(message);
    return message;
  }

  clear(): void {
    this.buffer = undefined;
  }
}

/** The SDK's stdio transport with a {@link LineReader}, which notes the requests it sends. */
class StdioTransport extends StdioClientTransport {
  private readonly pending = new PendingRequests();

  constructor(server: StdioServerCommand) {
    super(server);
    const reader = new LineReader(
      server.maxBufferSize ?? STDIO_DEFAULT_MAX_BUFFER_SIZE,
      this.pending,
    );
    // The SDK keeps its reader in a private field; a version without it keeps its own reader.
    const fields = this as unknown as { _readBuffer?: unknown };
    if (fields._readBuffer !== undefined) fields._readBuffer = reader;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.pending.sent(message);
    return super.send(message);
  }
}

/**
 * A stdio transport for `server`; the process starts when `connectMcp` connects and is stopped
 * (stdin closed, then SIGTERM, then SIGKILL) when the remote closes.
 *
 * A malformed response fails its call at once, as over HTTP, rather than leaving it to wait for
 * its timeout: a response that is not JSON-RPC fails the request it answers with `invalid
 * response: <why>`, and a line that is not JSON but starts as a response would (`{` or `[`, no
 * method) fails the request whose id it names, or every request waiting when it names none, with
 * `invalid response: a line that is not JSON`. Any other line that is not JSON (a log line a
 * server printed to stdout) goes to `onerror` and fails nothing.
 */
export function stdioTransport(server: StdioServerCommand): McpTransport {
  const transport = new StdioTransport(server);
  transportPeers.set(transport, { transport: 'pipe' });
  return transport;
}
