/**
 * `AnswerWatch`: fails at once the requests whose HTTP response ended before their answer, instead
 * of leaving them to wait for their timeout.
 *
 * @module
 */
import type { FetchLike, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { oneLine } from '../../lib/errors.js';

/** The JSON-RPC error code of a request whose response ended before its answer. */
export const CONNECTION_LOST = -32000;

/** The ids of the requests (not notifications or responses) in a POST body. */
function requestIds(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: RequestId[] = [];
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, id } = m as { method?: unknown; id?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number'))
      ids.push(id);
  }
  return ids;
}

/**
 * A request that failed before any answer came (fetch's bare `fetch failed`, its cause the socket's
 * error) as one line that says what happened and why.
 */
function requestFailed(err: unknown): unknown {
  if (!(err instanceof TypeError) || err.message !== 'fetch failed') return err;
  const cause = (err as { cause?: unknown }).cause;
  const why = cause instanceof Error ? `: ${oneLine(cause.message)}` : '';
  return new Error(
    `connection lost: the request failed${why}; the server or the connection to it went away`,
    { cause: err },
  );
}

/** The id a notifications/cancelled names, if `message` is one. */
export function cancelledId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * Watches a Streamable HTTP client transport's POSTs. The server answers a POST's requests on an
 * SSE stream; when that stream breaks or ends before a request's answer (the server died, a load
 * balancer lost it, the connection dropped), the SDK leaves the request waiting until its timeout.
 * Here each such request gets a JSON-RPC error at once, reading `connection lost: ...`. A stream
 * whose events carry ids is left alone: the SDK resumes it (a GET with `Last-Event-ID`).
 *
 * An error page in place of a JSON-RPC answer (a balancer's 502 with an HTML body) is shortened to
 * `HTTP <status> <text>`, so the error the SDK raises from it is one line.
 *
 * `fetch` goes to the SDK transport (its `fetch` option); `wrap` then gives the Transport to use.
 */
export class AnswerWatch {
  /** Requests sent and not answered yet. */
  private readonly pending = new Set<RequestId>();
  private onLost: (message: JSONRPCMessage) => void = () => undefined;
  /** The requests running, each with its own signal; and the transport signal they follow. */
  private readonly live = new Set<AbortController>();
  private followed: AbortSignal | undefined;

  constructor(private readonly base: FetchLike = (url, init) => fetch(url, init)) {}

  readonly fetch: FetchLike = async (url, init) => {
    // Each request gets a signal of its own, aborted with the transport's: fetch lets go of a
    // signal's listener only when its request is collected, so thousands of calls on the
    // transport's one signal would pile up listeners (a MaxListenersExceededWarning).
    const shared = init?.signal ?? undefined;
    let release = (): void => undefined;
    if (shared !== undefined) {
      const own = new AbortController();
      if (shared.aborted) own.abort(shared.reason);
      else {
        this.follow(shared);
        this.live.add(own);
        release = () => this.live.delete(own);
      }
      init = { ...init, signal: own.signal };
    }
    let res: Response;
    try {
      res = await this.base(url, init);
    } catch (err) {
      release();
      throw init?.signal?.aborted === true ? err : requestFailed(err);
    }
    const ids = init?.method === 'POST' ? requestIds(init.body) : [];
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok && !type.includes('json')) {
      release();
      await res.body?.cancel().catch(() => undefined);
      return new Response(`HTTP ${res.status} ${res.statusText}`.trim(), {
        status: res.status,
        statusText: res.statusText,
        headers: { 'content-type': 'text/plain' },
      });
    }
    if (!type.includes('text/event-stream') || res.body === null) {
      release();
      return res;
    }
    const reader = res.body.getReader();
    // A stream whose events carry ids can be resumed: the SDK reconnects with Last-Event-ID when
    // it ends, so its end loses nothing.
    const decoder = new TextDecoder();
    let resumable = false;
    let tail = '\n';
    // A broken stream is ended, not errored: an error would drop what it delivered last.
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        let reason: string | undefined;
        try {
          const { done, value } = await reader.read();
          if (!done) {
            if (!resumable) {
              const text = tail + decoder.decode(value, { stream: true });
              resumable = /[\r\n]id:/.test(text);
              tail = text.slice(-3);
            }
            controller.enqueue(value);
            return;
          }
        } catch (err) {
          reason = err instanceof Error ? err.message : String(err);
        }
        release();
        controller.close();
        if (!resumable) this.ended(ids, reason);
      },
      cancel: (reason) => {
        release();
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };

  /** `inner` (built with this watch's `fetch`) as a Transport that gets the errors. */
  wrap(inner: Transport): Transport {
    const outer: Transport & { terminateSession?: () => Promise<void> } = {
      start: () => inner.start(),
      close: () => inner.close(),
      send: (message: JSONRPCMessage, options?: TransportSendOptions) => {
        if ('method' in message && 'id' in message) this.pending.add(message.id);
        const cancelled = cancelledId(message);
        if (cancelled !== undefined) this.pending.delete(cancelled);
        return inner.send(message, options);
      },
      get sessionId() {
        return inner.sessionId;
      },
      setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
      // MCP 2026-07-28: a request ends by closing its own stream, which the SDK does only for a
      // transport that says it has one.
      get hasPerRequestStream() {
        return (inner as { hasPerRequestStream?: boolean }).hasPerRequestStream === true;
      },
    } as Transport & { hasPerRequestStream: boolean };
    const terminate = (inner as { terminateSession?: () => Promise<void> }).terminateSession;
    if (typeof terminate === 'function') outer.terminateSession = () => terminate.call(inner);
    inner.onmessage = (message, extra) => {
      if (!('method' in message) && 'id' in message && message.id !== undefined)
        this.pending.delete(message.id);
      outer.onmessage?.(message, extra);
    };
    inner.onerror = (error) => outer.onerror?.(error);
    inner.onclose = () => outer.onclose?.();
    this.onLost = (message) => outer.onmessage?.(message);
    return outer;
  }

  /** Aborts every running request when `signal` (the transport's) aborts: one listener. */
  private follow(signal: AbortSignal): void {
    if (this.followed === signal) return;
    this.followed = signal;
    signal.addEventListener(
      'abort',
      () => {
        const running = [...this.live];
        this.live.clear();
        for (const own of running) own.abort(signal.reason);
      },
      { once: true },
    );
  }

  /**
   * After a POST's stream ended: once the SDK has handled what it carried (a few ms later), each
   * of its requests still unanswered gets its error.
   */
  private ended(ids: readonly RequestId[], reason: string | undefined): void {
    setTimeout(() => {
      for (const id of ids) {
        if (!this.pending.delete(id)) continue;
        const why = reason === undefined ? 'the response ended' : `the response broke (${reason})`;
        this.onLost({
          jsonrpc: '2.0',
          id,
          error: {
            code: CONNECTION_LOST,
            message: `connection lost: ${why} before the answer; the server or the connection to it went away`,
          },
        });
      }
    }, 20);
  }
}
