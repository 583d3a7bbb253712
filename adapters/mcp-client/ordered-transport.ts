/**
 * A Transport wrapper that keeps a server's progress ahead of the response it preceded.
 *
 * @module
 */
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';

type Pending =
  | { kind: 'message'; message: JSONRPCMessage; extra: MessageExtraInfo | undefined }
  | { kind: 'close' };

const macrotask: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The common well-formed result, checked without a schema: most responses take this path. */
function plainResult(message: Record<string, unknown>): boolean {
  const result = message.result;
  return (
    message.jsonrpc === '2.0' &&
    isObject(result) &&
    result._meta === undefined &&
    Object.keys(message).length === 3
  );
}

/**
 * The message as the SDK can take it. The SDK drops a response it cannot parse (a result that is
 * not an object, an error without a code, a stray member) as an unknown message, and the request
 * it answers waits until it times out. A response that names a request id becomes an error
 * response for that request instead, so the call fails at once with the reason.
 */
function repaired(message: JSONRPCMessage): JSONRPCMessage {
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

/**
 * Delivers the inner transport's messages in order, except that a response, and the close, is held
 * back until one macrotask after a notification delivered before it.
 *
 * Why: the SDK's Protocol runs a notification's handler in a microtask but settles a response
 * synchronously, dropping the request's progress handler as it does. A progress notification
 * written just before the result (the common case: the last step's progress, then the answer)
 * arrives in the same chunk and was lost. Holding the response back a macrotask lets every
 * notification handler that came before it run first. When no notification was delivered since
 * the last macrotask, a response goes straight through, so a call without progress pays nothing.
 *
 * It also makes a malformed response fail its request at once (see `repaired`), and keeps an
 * exception thrown while one message is handled from reaching the event loop: it goes to
 * `onerror`.
 *
 * Only the public Transport interface is used: the wrapper is what the Client connects to, and it
 * owns the inner transport's callbacks. `lastError` keeps the inner transport's latest error, so a
 * connection that closes on its own can say why.
 */
export class OrderedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The inner transport's latest error, if any. */
  lastError: Error | undefined = undefined;
  setProtocolVersion?: (version: string) => void;

  private readonly queue: Pending[] = [];
  private head = 0;
  private flushing = false;
  private dirty = false;
  private readonly clearDirty = (): void => {
    this.dirty = false;
  };
  private readonly flushLater = (): void => {
    this.flushing = false;
    this.flush();
  };

  constructor(readonly inner: Transport) {
    inner.onmessage = (message, extra) =>
      this.receive({ kind: 'message', message: repaired(message), extra });
    inner.onclose = () => this.receive({ kind: 'close' });
    inner.onerror = (error) => {
      this.lastError = error;
      this.onerror?.(error);
    };
    const setVersion = inner.setProtocolVersion;
    if (setVersion !== undefined)
      this.setProtocolVersion = (version) => setVersion.call(inner, version);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private receive(item: Pending): void {
    if (this.head < this.queue.length) {
      this.queue.push(item);
      return;
    }
    if (this.holdsBack(item) && this.dirty) {
      this.queue.push(item);
      this.schedule();
      return;
    }
    this.deliver(item);
  }

  private holdsBack(item: Pending): boolean {
    return item.kind === 'close' || isResponse(item.message);
  }

  private deliver(item: Pending): void {
    if (item.kind === 'close') {
      this.onclose?.();
      return;
    }
    if (!isResponse(item.message)) this.markDirty();
    try {
      this.onmessage?.(item.message, item.extra);
    } catch (err) {
      // One message the client could not handle (the SDK describes an unknown one with
      // JSON.stringify, which a deep enough message overflows) must not end the process from a
      // macrotask, nor stop the messages queued after it.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private markDirty(): void {
    if (this.dirty) return;
    this.dirty = true;
    macrotask(this.clearDirty);
  }

  private schedule(): void {
    if (this.flushing) return;
    this.flushing = true;
    macrotask(this.flushLater);
  }

  private flush(): void {
    while (this.head < this.queue.length) {
      const item = this.queue[this.head]!;
      if (this.holdsBack(item) && this.dirty) {
        this.schedule();
        return;
      }
      this.queue[this.head++] = undefined as unknown as Pending;
      this.deliver(item);
    }
    this.queue.length = 0;
    this.head = 0;
  }
}
