/**
 * Log messages that come on a call's own HTTP response stream, marked as that call's.
 *
 * MCP does not say which request a log message (`notifications/message`) belongs to, but over
 * Streamable HTTP a server sends the messages of a request on that request's response stream (the
 * SDKs' request-scoped logging does). The SDK's transport hands them on without saying which
 * stream they came on, so this rewrites the stream of a tools/call as it passes: each log message
 * without a call token gets the call's (`CALL_TOKEN`), by which `connectMcp` shows it on the call.
 * Nothing else changes; an event it cannot read passes as it came.
 *
 * @module
 */
import { CALL_TOKEN } from '../mcp-shared/call-token.js';

/** An event boundary: a blank line (SSE ends lines with CRLF, LF or CR). */
const BOUNDARY = /\r\n\r\n|\n\n|\r\r/g;

/** The longest boundary less one: how far back a search resumes, for one cut across chunks. */
const OVERLAP = 3;

/** Only an event whose text holds this can be a log message: the others are not parsed. */
const LOG_METHOD = '"notifications/message"';

/**
 * Rewrites an SSE stream's text, event by event: a `notifications/message` without a call token
 * gets `token` under its `_meta`. Text after the last complete event waits for the next chunk.
 */
export class LogMarker {
  private buffer = '';
  /** How much of `buffer` holds no boundary: an event coming in many chunks is searched once. */
  private searched = 0;

  constructor(private readonly token: string) {}

  /** The complete events of `text` (after what was held), rewritten; the rest is held. */
  push(text: string): string {
    this.buffer += text;
    let out = '';
    for (;;) {
      BOUNDARY.lastIndex = Math.max(0, this.searched - OVERLAP);
      const match = BOUNDARY.exec(this.buffer);
      if (match === null) {
        this.searched = this.buffer.length;
        return out;
      }
      const end = match.index + match[0].length;
      out += this.mark(this.buffer.slice(0, match.index)) + match[0];
      this.buffer = this.buffer.slice(end);
      this.searched = 0;
    }
  }

  /** What is held at the stream's end (an event the server did not finish), as it came. */
  flush(): string {
    const rest = this.buffer;
    this.buffer = '';
    this.searched = 0;
    return rest;
  }

  /** One event's lines, its data rewritten when it is a single-line log message. */
  private mark(event: string): string {
    if (!event.includes(LOG_METHOD)) return event;
    const lines = event.split(/\r\n|\n|\r/);
    const data = lines.filter((line) => line.startsWith('data:'));
    if (data.length !== 1) return event;
    const line = data[0]!;
    const value = line.slice(line.startsWith('data: ') ? 6 : 5);
    let message: unknown;
    try {
      message = JSON.parse(value);
    } catch {
      return event;
    }
    if (!isLogWithoutToken(message)) return event;
    const params = message.params as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const marked = {
      ...message,
      params: { ...params, _meta: { ...meta, [CALL_TOKEN]: this.token } },
    };
    const separator = event.includes('\r\n') ? '\r\n' : event.includes('\r') ? '\r' : '\n';
    return lines
      .map((each) => (each === line ? `data: ${JSON.stringify(marked)}` : each))
      .join(separator);
  }
}

/** Whether `message` is a JSON-RPC log notification whose `_meta` names no call. */
function isLogWithoutToken(message: unknown): message is { params: Record<string, unknown> } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'notifications/message') return false;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const meta = (params as { _meta?: unknown })._meta;
  if (meta === undefined) return true;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return false;
  return !(CALL_TOKEN in meta);
}
