/**
 * The requests of one Streamable HTTP session that await an answer, each with the POST that
 * carries it: what lets a reused request id be refused, a dropped POST cancel its calls, and a
 * call its client cancelled close its POST.
 *
 * @module
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

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
  private readonly inflight = new Map<RequestId, Post>();

  constructor(private readonly transport: StreamableHTTPServerTransport) {
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const id = responseIdOf(message);
      const post = id === undefined ? undefined : this.inflight.get(id);
      if (post !== undefined) {
        this.inflight.delete(id!);
        post.unanswered.delete(id!);
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
  posted(ids: readonly RequestId[]): (finished: boolean) => void {
    const post: Post = { unanswered: new Set(ids), cancelled: false };
    for (const id of ids) this.inflight.set(id, post);
    return (finished) => {
      for (const requestId of post.unanswered) {
        if (this.inflight.get(requestId) === post) this.inflight.delete(requestId);
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
      const post = this.inflight.get(id);
      if (post === undefined) continue;
      this.inflight.delete(id);
      post.unanswered.delete(id);
      post.cancelled = true;
      if (post.unanswered.size === 0) this.transport.closeSSEStream(id);
    }
  }
}
