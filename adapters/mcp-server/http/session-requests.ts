/**
 * The requests of one Streamable HTTP session that await an answer, each with the POST that
 * carries it: what lets a reused request id be refused, a dropped POST cancel its calls, and a
 * call its client cancelled close its POST.
 *
 * @module
 */
import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { CancelledError } from '../../../lib/errors.js';
import type { Release } from './call-admission.js';
import { failure } from '../served-call.js';

/**
 * How a call of a batch was admitted (see `McpHttpHandler`): its slot, a promise of one while it
 * waits its turn, or the busy message it is answered with.
 */
export type Admission = Release | Promise<Release> | string;

/** The messages of a POST body: a JSON-RPC batch, or the one message. */
export function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** The ids of the requests (not notifications or responses) in a POST body. */
export function requestIdsOf(body: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of messagesOf(body)) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, id } = m as { method?: unknown; id?: unknown };
    if (typeof method !== 'string') continue;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

/** The request ids a POST body's notifications/cancelled name. */
function cancelledIdsOf(body: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of messagesOf(body)) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, params } = m as { method?: unknown; params?: { requestId?: unknown } };
    if (method !== 'notifications/cancelled' || typeof params !== 'object' || params === null)
      continue;
    const id = params.requestId;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

/** The id of a JSON-RPC response (a result or an error), undefined for anything else. */
function responseIdOf(message: JSONRPCMessage): RequestId | undefined {
  return 'id' in message && !('method' in message) ? message.id : undefined;
}

/** The requests of one POST not answered yet, and whether one of them was cancelled. */
interface Post {
  readonly unanswered: Set<RequestId>;
  cancelled: boolean;
}

/** One request in flight: its POST, its method, the tool it calls, the call slot it holds. */
interface Held {
  readonly post: Post;
  readonly method: string;
  readonly tool: string | undefined;
  admission: Admission | undefined;
  release: Release | undefined;
}

/** The tool a tools/call message names, for the answer it gets at shutdown. */
function toolOf(message: unknown): string | undefined {
  const params = (message as { params?: { name?: unknown } }).params;
  return typeof params?.name === 'string' ? params.name : undefined;
}

/**
 * Keeps one session's requests in flight. Built before the session's Server connects to
 * `transport`: it watches the responses the transport sends.
 *
 * The SDK's transport sends a POST's answers, then ends it, once every request it carried is
 * answered; a cancelled request is never answered (MCP says not to), so without this its POST
 * would stay open until the session ends. And it files requests by id alone, so a second request
 * with an id in flight would take the first one's answer.
 */
export class SessionRequests {
  private readonly inflight = new Map<RequestId, Held>();

  constructor(private readonly transport: StreamableHTTPServerTransport) {
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const id = responseIdOf(message);
      const held = id === undefined ? undefined : this.inflight.get(id);
      const post = held?.post;
      if (held !== undefined) {
        this.inflight.delete(id!);
        held.post.unanswered.delete(id!);
        held.release?.();
      }
      await send(message, options);
      if (post?.cancelled === true && post.unanswered.size === 0) transport.closeSSEStream(id!);
    };
  }

  /** The first of `ids` that is in flight or given twice; undefined when none. */
  reused(ids: readonly RequestId[]): RequestId | undefined {
    const seen = new Set<RequestId>();
    for (const id of ids) {
      if (this.inflight.has(id) || seen.has(id)) return id;
      seen.add(id);
    }
    return undefined;
  }

  /**
   * Records the requests of a POST as in flight. Call the function returned when its response
   * closes: the requests still unanswered are forgotten and, unless the response finished,
   * cancelled, since nothing could deliver their answers any more.
   */
  posted(
    body: unknown,
    admissions?: ReadonlyMap<RequestId, Admission>,
  ): (finished: boolean) => void {
    const post: Post = { unanswered: new Set(), cancelled: false };
    for (const m of messagesOf(body)) {
      if (typeof m !== 'object' || m === null) continue;
      const { method, id } = m as { method?: unknown; id?: unknown };
      if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number'))
        continue;
      post.unanswered.add(id);
      this.inflight.set(id, {
        post,
        method,
        tool: method === 'tools/call' ? toolOf(m) : undefined,
        admission: admissions?.get(id),
        release: undefined,
      });
    }
    return (finished) => {
      for (const requestId of post.unanswered) {
        const held = this.inflight.get(requestId);
        if (held?.post === post) {
          this.inflight.delete(requestId);
          held.release?.();
        }
        if (finished) continue;
        const cancel: JSONRPCMessage = {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId, reason: 'client disconnected' },
        };
        this.transport.onmessage?.(cancel);
      }
      post.unanswered.clear();
    };
  }

  /**
   * After the transport has handled `body`: each request it cancels will never be answered, and
   * a POST left with nothing else to answer is closed.
   */
  cancelledBy(body: unknown): void {
    for (const id of cancelledIdsOf(body)) {
      const held = this.inflight.get(id);
      if (held === undefined) continue;
      const post = held.post;
      this.inflight.delete(id);
      held.release?.();
      post.unanswered.delete(id);
      post.cancelled = true;
      if (post.unanswered.size === 0) this.transport.closeSSEStream(id);
    }
  }

  /**
   * Called once the Server has connected to the transport: a call of a batch is handed to the
   * Server only once admitted. Past the limit it waits its turn, or is answered with its busy
   * message as a JSON-RPC error in the batch's response; its slot is given back when it is
   * answered or cancelled, or its POST closes.
   */
  admitBatchCalls(): void {
    const deliver = this.transport.onmessage;
    this.transport.onmessage = (message, extra) => {
      const id = 'method' in message && 'id' in message ? message.id : undefined;
      const held = id === undefined ? undefined : this.inflight.get(id);
      const admission = held?.admission;
      if (held === undefined || admission === undefined) {
        deliver?.(message, extra);
        return;
      }
      held.admission = undefined;
      if (typeof admission === 'string') {
        const busy: JSONRPCMessage = {
          jsonrpc: '2.0',
          id: id!,
          error: { code: -32000, message: admission },
        };
        this.transport.send(busy).catch(() => undefined);
      } else if (typeof admission === 'function') {
        held.release = admission;
        deliver?.(message, extra);
      } else
        void admission.then((release) => {
          // Its POST closed, or it was cancelled, while it waited.
          if (this.inflight.get(id!) !== held) release();
          else {
            held.release = release;
            deliver?.(message, extra);
          }
        });
    };
  }

  /**
   * Answers every request still in flight before the server shuts down: its handler is
   * cancelled, and a tools/call gets an `isError` result (`server shutting down: call "<name>"
   * was cancelled`), any other request a JSON-RPC error. Each POST then ends with its answers.
   */
  async shutDown(): Promise<void> {
    const pending = [...this.inflight];
    for (const [requestId] of pending) {
      const cancel: JSONRPCMessage = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'server shutting down' },
      };
      this.transport.onmessage?.(cancel);
    }
    await Promise.all(
      pending.map(([id, held]) => {
        const answer: JSONRPCMessage =
          held.method === 'tools/call'
            ? {
                jsonrpc: '2.0',
                id,
                result: failure(
                  new CancelledError(
                    `server shutting down: call ${JSON.stringify(held.tool ?? '')} was cancelled`,
                  ),
                ),
              }
            : {
                jsonrpc: '2.0',
                id,
                error: { code: -32000, message: 'server shutting down: request cancelled' },
              };
        return this.transport.send(answer).catch(() => undefined);
      }),
    );
  }
}
