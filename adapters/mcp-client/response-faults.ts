/**
 * Malformed responses, failed at once: a response the SDK cannot parse becomes an error response
 * for the request it answers ({@link repaired}), and a line of a stdio stream that is not JSON
 * fails the request it names, or every request waiting ({@link PendingRequests.unparsed}), instead
 * of leaving them to wait for their timeout. Browser-safe: the stdio transport and
 * `OrderedTransport` share it.
 *
 * @module
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/client';
import { cancelledId } from './answer-watch.js';

/** JSON-RPC's code for text that does not parse as JSON. */
const PARSE_ERROR = -32700;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The common well-formed result, checked without a schema: most responses take this path. A
 * result's `_meta` is any JSON object to the SDK's schema (its one named member, the server's
 * info, is dropped when malformed rather than failing the result), as MCP 2026-07-28 results
 * carry one.
 */
function plainResult(message: Record<string, unknown>): boolean {
  const result = message.result;
  return (
    message.jsonrpc === '2.0' &&
    isObject(result) &&
    (result._meta === undefined || isObject(result._meta)) &&
    ownKeyCount(message) === 3
  );
}

/** How many own enumerable keys `value` has, counted without making the array of them. */
function ownKeyCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}

/**
 * The message as the SDK can take it. The SDK drops a response it cannot parse (a result that is
 * not an object, an error without a code, a stray member) as an unknown message, and the request
 * it answers waits until it times out. A response that names a request id becomes an error
 * response for that request instead, so the call fails at once with the reason. Every transport
 * goes through it (`OrderedTransport`); the stdio transport also hands it the responses the SDK's
 * line parser would have dropped.
 */
export function repaired(message: JSONRPCMessage): JSONRPCMessage {
  const m = message as unknown as Record<string, unknown>;
  if (!isObject(m) || 'method' in m) return message;
  const id = m.id;
  if (typeof id !== 'string' && !Number.isInteger(id)) return message;
  if (plainResult(m) || isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m)) return message;
  const reason = !('result' in m || 'error' in m)
    ? 'neither a result nor an error'
    : 'result' in m && !isObject(m.result)
      ? `the result is ${m.result === null ? 'null' : Array.isArray(m.result) ? 'an array' : typeof m.result}`
      : 'not a JSON-RPC 2.0 response';
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: { code: -32603, message: `invalid response: ${reason}` },
  };
}

/** A request id written in a line of JSON text: a number or a string, as JSON-RPC allows. */
const ID_IN_TEXT = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/g;

/**
 * The requests a client has sent and not had answered, by id: to fail at once, with a reason,
 * the ones a malformed line answers.
 */
export class PendingRequests {
  private readonly ids = new Set<RequestId>();

  /** Notes a message the client sends: a request waits; a cancellation ends the one it names. */
  sent(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message) this.ids.add(message.id);
      else {
        const cancelled = cancelledId(message);
        if (cancelled !== undefined) this.ids.delete(cancelled);
      }
    }
  }

  /** Notes a message the client receives: a response ends the request it answers. */
  received(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && message.id !== undefined)
      this.ids.delete(message.id);
  }

  /**
   * The error responses for a line that is not JSON, when it looks like a response (an object or
   * an array, naming no method): the request whose id it names, if one waits, else every request
   * waiting, since the answer to one of them was lost. None for any other line (a stray log line,
   * which only the transport's `onerror` hears of), nor when no request waits.
   */
  unparsed(line: string): JSONRPCMessage[] {
    const text = line.trimStart();
    if (!(text.startsWith('{') || text.startsWith('[')) || /"method"\s*:/.test(text)) return [];
    let named: RequestId[] = [];
    for (const [, token] of text.matchAll(ID_IN_TEXT)) {
      let id: unknown;
      try {
        id = JSON.parse(token!);
      } catch {
        continue;
      }
      if ((typeof id === 'number' || typeof id === 'string') && this.ids.has(id)) named.push(id);
    }
    if (named.length === 0) named = [...this.ids];
    return named.map((id) => {
      this.ids.delete(id);
      return {
        jsonrpc: '2.0',
        id,
        error: { code: PARSE_ERROR, message: 'invalid response: a line that is not JSON' },
      };
    });
  }
}
