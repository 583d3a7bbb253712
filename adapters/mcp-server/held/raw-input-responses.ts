/**
 * `inputResponses` as a `tasks/update` request carried it: the SDK lifts the field out of a
 * request's params and turns any value that is not an object of answers into `{}` before a handler
 * sees it, so an array, a string or `null` would read as "no answers" and be acknowledged. The
 * raw field is noted here as the message arrives, for the handler to refuse it (-32602).
 *
 * @module
 */
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';

/** What a JSON value is, in a word a client can act on. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * The `tasks/update` requests of one server whose `inputResponses` was there but no object, by
 * request id, with what it was instead. A request's note is read once, by its handler.
 */
export class RawInputResponses {
  private readonly malformed = new Map<RequestId, string>();

  /**
   * Has `transport`'s messages looked at before the server reads them (call before
   * `server.connect(transport)`, which keeps a handler set before it and calls it first).
   */
  watch(transport: Transport): void {
    const before = transport.onmessage;
    transport.onmessage = (message, extra) => {
      this.note(message);
      before?.(message, extra);
    };
  }

  /** Notes a `tasks/update` request whose `inputResponses` is present and no plain object. */
  note(message: JSONRPCMessage): void {
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (method !== 'tasks/update' || (typeof id !== 'string' && typeof id !== 'number')) return;
    // An id is used again once its request is answered: a note never outlives its request's turn.
    this.malformed.delete(id);
    if (typeof params !== 'object' || params === null || !('inputResponses' in params)) return;
    const value = (params as { inputResponses: unknown }).inputResponses;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return;
    this.malformed.set(id, kindOf(value));
  }

  /** What the request `id` carried as `inputResponses` when it was no object; forgets it. */
  take(id: RequestId): string | undefined {
    const kind = this.malformed.get(id);
    this.malformed.delete(id);
    return kind;
  }
}
