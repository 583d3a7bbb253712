/**
 * A Transport wrapper that hands a call its progress as it arrives, ahead of the response it
 * preceded, and cancels a call without an AbortSignal.
 *
 * @module
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/client';
import type { ProgressInfo } from '../../lib/contract.js';
import { repaired } from './response-faults.js';
import { asTaskResult, completeByDefault, shallowTools } from './response-rewrites.js';

export { TOO_DEEP } from './response-rewrites.js';

/**
 * A call whose progress the transport hands over itself: the request carries the token the call
 * was given by {@link OrderedTransport.route}, and the transport notes the request's id as it goes.
 */
export interface RoutedCall {
  /** The JSON-RPC id of the call's request, once it has been sent. */
  requestId: string | number | undefined;
  /** One well-formed progress notification of the call, in the order the server sent them. */
  progress(params: RoutedProgress): void;
}

/** The params of a progress notification, checked: `progress` a number, the rest as MCP says. */
export interface RoutedProgress {
  readonly progressToken: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** The call's progress as a tool reports it (ProgressInfo): the fields the server sent. */
export function progressInfo(progress: RoutedProgress): ProgressInfo {
  const info: ProgressInfo = { progress: progress.progress };
  if (progress.total !== undefined) info.total = progress.total;
  if (progress.message !== undefined) info.message = progress.message;
  return info;
}

/** The token of a routed call's request, if `message` is a tools/call request that has one. */
function callToken(message: JSONRPCMessage): unknown {
  if (!('method' in message) || message.method !== 'tools/call') return undefined;
  const meta = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  return meta?.progressToken;
}

/** The params of `message` if it is a well-formed progress notification with a string token. */
function progressParams(message: JSONRPCMessage): RoutedProgress | undefined {
  if (!('method' in message) || message.method !== 'notifications/progress' || 'id' in message)
    return undefined;
  const params = message.params as Record<string, unknown> | undefined;
  if (typeof params !== 'object' || params === null) return undefined;
  const { progressToken, progress, total, message: text } = params;
  if (typeof progressToken !== 'string' || typeof progress !== 'number') return undefined;
  if (total !== undefined && typeof total !== 'number') return undefined;
  if (text !== undefined && typeof text !== 'string') return undefined;
  return params as unknown as RoutedProgress;
}

/** MCP's cancellation of a request, which {@link OrderedTransport.cancel} sends. */
export interface CancelNotice {
  method: 'notifications/cancelled';
  params: { requestId: string | number; reason: string };
}

type Pending =
  | { kind: 'message'; message: JSONRPCMessage; extra: MessageExtraInfo | undefined }
  | { kind: 'close' };

const macrotask: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

function isResponse(message: JSONRPCMessage): boolean {
  return !('method' in message);
}

/**
 * Delivers the inner transport's messages in order, and routes the progress of the calls it was
 * given ({@link OrderedTransport.route}) itself.
 *
 * Why: the SDK's Protocol runs a notification's handler in a microtask but settles a response
 * synchronously, dropping the request's progress handler as it does. A progress notification
 * written just before the result (the common case: the last step's progress, then the answer)
 * arrives in the same chunk and was lost. A routed call's progress never goes through the SDK:
 * it reaches the call synchronously as it arrives, so it is ahead of the response by
 * construction, and costs no wait. For every other notification (progress the SDK routes, for a
 * request made on the Client directly with `onprogress`; a log message; a list change), a
 * response, and the close, is held back until one macrotask after it, so its handler runs first;
 * with none since the last macrotask, a response goes straight through.
 *
 * {@link OrderedTransport.cancel} cancels a routed call: MCP's cancellation to the server, and an
 * error response to the SDK so that it forgets the request (its handler and its timer).
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

  private readonly routed = new Map<string, RoutedCall>();
  private tokens = 0;
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

  /** Requests sent by {@link OrderedTransport.request}, by id, waiting for their answer. */
  private readonly raw = new Map<
    string,
    { resolve(result: unknown): void; reject(error: Error): void }
  >();
  private raws = 0;

  constructor(readonly inner: Transport) {
    inner.onmessage = (message, extra) => {
      if (this.raw.size > 0 && this.answerRaw(message)) return;
      if (this.routed.size > 0 && this.routeProgress(message)) return;
      const fixed = asTaskResult(shallowTools(repaired(message)));
      this.receive({
        kind: 'message',
        message: this.modern ? completeByDefault(fixed) : fixed,
        extra,
      });
    };
    inner.onclose = () => {
      for (const waiting of this.raw.values()) waiting.reject(new Error('the connection closed'));
      this.raw.clear();
      this.receive({ kind: 'close' });
    };
    inner.onerror = (error) => {
      this.lastError = error;
      this.onerror?.(error);
    };
    const setVersion = inner.setProtocolVersion;
    this.setProtocolVersion = (version) => {
      this.modern = version >= '2026-07-28';
      setVersion?.call(inner, version);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /**
   * Whether each request has a stream of its own (Streamable HTTP): in MCP 2026-07-28 the SDK then
   * ends a cancelled request by closing its stream rather than sending `notifications/cancelled`.
   */
  get hasPerRequestStream(): boolean {
    return (this.inner as { hasPerRequestStream?: boolean }).hasPerRequestStream === true;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  /** Whether the connection speaks MCP 2026-07-28 (told through `setProtocolVersion`). */
  private modern = false;

  /**
   * Sends a cancellation as the client sends its notifications, when set: in MCP 2026-07-28 each
   * carries the client's envelope in `_meta` (McpRemote sets it to the client's `notification`).
   * Otherwise it goes to the inner transport as it is.
   */
  notify: ((notice: CancelNotice) => Promise<void>) | undefined = undefined;

  /** Calls cancelled before their request was sent, by token: the reason of each. */
  private readonly withdrawn = new Map<string, string>();

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.routed.size > 0 || this.withdrawn.size > 0) {
      const token = callToken(message);
      const call = typeof token === 'string' ? this.routed.get(token) : undefined;
      if (call !== undefined) call.requestId = (message as { id: string | number }).id;
      const reason = typeof token === 'string' ? this.withdrawn.get(token) : undefined;
      if (reason !== undefined) {
        // Cancelled before it went out: it never does, and the SDK's request settles at once.
        this.withdrawn.delete(token as string);
        const id = (message as { id: string | number }).id;
        this.deliver({
          kind: 'message',
          message: { jsonrpc: '2.0', id, error: { code: -32800, message: reason } },
          extra: undefined,
        });
        return Promise.resolve();
      }
    }
    return this.inner.send(message, options);
  }

  /**
   * Routes `call`'s progress from now on: returns the progress token its request must carry
   * (`params._meta.progressToken`). Until {@link OrderedTransport.unroute}, every well-formed
   * progress notification with that token goes to `call.progress`, never to the SDK.
   */
  route(call: RoutedCall): string {
    const token = `agenttool-${++this.tokens}`;
    this.routed.set(token, call);
    return token;
  }

  /** Stops routing the progress of the call given `token`. */
  unroute(token: string): void {
    this.routed.delete(token);
  }

  /**
   * Cancels the routed call given `token`: stops routing its progress, tells the server (MCP's
   * `notifications/cancelled` with `reason`) and settles the SDK's request with an error, which
   * the caller ignores. A call whose request has not been sent yet is withdrawn: it is never sent.
   */
  cancel(token: string, reason: string): void {
    const call = this.routed.get(token);
    this.routed.delete(token);
    const requestId = call?.requestId;
    if (requestId === undefined) {
      // Not sent yet (the SDK sends a request after some work of its own): it never will be.
      if (call !== undefined) this.withdrawn.set(token, reason);
      return;
    }
    const notice = { method: 'notifications/cancelled' as const, params: { requestId, reason } };
    const sent = this.notify?.(notice) ?? this.inner.send({ jsonrpc: '2.0', ...notice });
    sent.catch((err: unknown) => {
      this.onerror?.(new Error(`failed to send cancellation: ${String(err)}`));
    });
    this.deliver({
      kind: 'message',
      message: { jsonrpc: '2.0', id: requestId, error: { code: -32800, message: reason } },
      extra: undefined,
    });
  }

  /**
   * Sends a request the SDK's client would refuse to (the methods of MCP tasks: its 2026-07-28
   * client knows no `tasks/get`) with an id of its own, and resolves with its result, or rejects
   * with its error (`code` and `data` kept). The answer never reaches the SDK. `params` go as
   * given: the caller puts in the `_meta` its era asks for.
   */
  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = `agenttool-request-${++this.raws}`;
    return new Promise((resolve, reject) => {
      this.raw.set(id, { resolve, reject });
      this.inner
        .send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage)
        .catch((err: unknown) => {
          this.raw.delete(id);
          reject(err instanceof Error ? err : new Error(String(err)));
        });
    });
  }

  /** Settles the {@link OrderedTransport.request} `message` answers; false when it answers none. */
  private answerRaw(message: JSONRPCMessage): boolean {
    const id = (message as { id?: unknown }).id;
    if ('method' in message || typeof id !== 'string') return false;
    const waiting = this.raw.get(id);
    if (waiting === undefined) return false;
    this.raw.delete(id);
    const { result, error } = message as { result?: unknown; error?: unknown };
    if (error !== undefined) {
      const { code, message: text, data } = (error ?? {}) as Record<string, unknown>;
      waiting.reject(
        Object.assign(new Error(typeof text === 'string' ? text : 'the server answered an error'), {
          code,
          data,
        }),
      );
    } else waiting.resolve(result);
    return true;
  }

  /** Hands a routed call its progress; false when `message` is not one. */
  private routeProgress(message: JSONRPCMessage): boolean {
    const params = progressParams(message);
    const call = params === undefined ? undefined : this.routed.get(params.progressToken);
    if (call === undefined) return false;
    try {
      call.progress(params!);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
    return true;
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
