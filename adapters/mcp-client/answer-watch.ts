/**
 * `AnswerWatch`: fails at once the requests whose HTTP response ended before their answer, instead
 * of leaving them to wait for their timeout.
 *
 * @module
 */
import type { FetchLike, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { oneLine } from '../../lib/errors.js';
import { callTokenOf } from '../mcp-shared/call-token.js';
import { FollowedSignals } from './followed-signals.js';
import { LogMarker } from './related-logs.js';
import {
  BUSY,
  busyAnswer,
  busyWait,
  DEFAULT_BUSY_RETRIES,
  errorPage,
  insufficientScope,
  pause,
  stepUpAnswer,
} from './http-answers.js';

export { DEFAULT_BUSY_RETRIES } from './http-answers.js';

/** The JSON-RPC error code of a request whose response ended before its answer. */
export const CONNECTION_LOST = -32000;

/**
 * The ids of the requests (not notifications or responses) in a POST body, and the call token of
 * the tools/call it sends alone (see `callTokenOf`).
 */
function posted(body: unknown): { ids: RequestId[]; callToken: string | undefined } {
  const ids: RequestId[] = [];
  if (typeof body !== 'string') return { ids, callToken: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ids, callToken: undefined };
  }
  let callToken: string | undefined;
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof m !== 'object' || m === null) continue;
    const { method, id, params } = m as { method?: unknown; id?: unknown; params?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) {
      ids.push(id);
      if (method === 'tools/call' && typeof params === 'object' && params !== null)
        callToken = callTokenOf((params as { _meta?: unknown })._meta);
    }
  }
  // A batch of requests shares one stream: its log messages name no one call.
  return { ids, callToken: ids.length === 1 ? callToken : undefined };
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

/**
 * A POST's SSE stream passed on to the SDK: its call's log messages marked as its own (see
 * related-logs.ts), and its end told (`onEnd`, with why it broke if it did) unless its events
 * carry ids. A stream whose events carry ids can be resumed: the SDK reconnects with
 * Last-Event-ID when it ends, so its end loses nothing.
 */
class WatchedStream {
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();
  private readonly marker: LogMarker | undefined;
  private resumable = false;
  private tail = '\n';

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    callToken: string | undefined,
    private readonly release: () => void,
    private readonly onEnd: (reason: string | undefined) => void,
  ) {
    this.marker = callToken === undefined ? undefined : new LogMarker(callToken);
  }

  /** The stream the SDK reads. A broken stream is ended, not errored: an error would drop what it delivered last. */
  body(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: (controller) => this.pull(controller),
      cancel: (reason) => {
        this.release();
        return this.reader.cancel(reason);
      },
    });
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    let reason: string | undefined;
    try {
      // Until something is enqueued: a pull that enqueues nothing is not called again.
      for (;;) {
        const { done, value } = await this.reader.read();
        if (done) break;
        if (this.pass(controller, value)) return;
      }
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    }
    const marker = this.marker;
    if (marker !== undefined) {
      const rest = marker.flush() + this.decoder.decode();
      if (rest !== '') controller.enqueue(this.encoder.encode(rest));
    }
    this.release();
    controller.close();
    if (!this.resumable) this.onEnd(reason);
  }

  /** Passes on what `value` carries; false when it carried nothing to pass on yet. */
  private pass(
    controller: ReadableStreamDefaultController<Uint8Array>,
    value: Uint8Array,
  ): boolean {
    const marker = this.marker;
    // Decoded once, for both: a marked stream is read to its end, an unmarked one until it shows
    // it can be resumed.
    const text =
      marker !== undefined || !this.resumable ? this.decoder.decode(value, { stream: true }) : '';
    if (!this.resumable) {
      const seen = this.tail + text;
      this.resumable = /[\r\n]id:/.test(seen);
      this.tail = seen.slice(-3);
    }
    if (marker === undefined) {
      controller.enqueue(value);
      return true;
    }
    const marked = marker.push(text);
    if (marked === '') return false;
    controller.enqueue(this.encoder.encode(marked));
    return true;
  }
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
  /** The requests running, each with its own signal, by the signal they follow. */
  private readonly signals = new FollowedSignals();

  /**
   * @param base The fetch the requests go through.
   * @param busyRetries How many times a request refused busy (HTTP 503 or 429 with `Retry-After`)
   *   is sent again, after the wait the server asks for; see {@link DEFAULT_BUSY_RETRIES}.
   */
  constructor(
    private readonly base: FetchLike = (url, init) => fetch(url, init),
    private readonly busyRetries = DEFAULT_BUSY_RETRIES,
    private readonly stepUp = false,
  ) {}

  readonly fetch: FetchLike = async (url, init) => {
    // Each request gets a signal of its own (see FollowedSignals), released when it is done.
    const shared = init?.signal ?? undefined;
    let release = (): void => undefined;
    if (shared !== undefined) {
      const own = this.signals.own(shared);
      release = own.release;
      init = { ...init, signal: own.signal };
    }
    const { ids, callToken } =
      init?.method === 'POST' ? posted(init.body) : { ids: [], callToken: undefined };
    let sent: { res: Response; retries: number };
    try {
      sent = await this.send(url, init, ids.length > 0);
    } catch (err) {
      release();
      throw init?.signal?.aborted === true ? err : requestFailed(err);
    }
    const { res, retries } = sent;
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream') || res.body === null || !res.ok) {
      release();
      return this.plainAnswer(res, type, ids.length > 0, retries);
    }
    // An ok SSE stream: none of plainAnswer's cases (each has a status that is not ok).
    const stream = new WatchedStream(res.body.getReader(), callToken, release, (reason) =>
      this.ended(ids, reason),
    );
    return new Response(stream.body(), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };

  /**
   * Sends a request, and sends it again while the server refuses it busy (it ran nothing, so the
   * same requests go again once it has room), at most `busyRetries` times.
   */
  private async send(
    url: string | URL,
    init: RequestInit | undefined,
    requests: boolean,
  ): Promise<{ res: Response; retries: number }> {
    let res = await this.base(url, init);
    let retries = 0;
    for (; retries < this.busyRetries && requests; retries++) {
      const wait = busyWait(res);
      if (wait === undefined) break;
      await res.body?.cancel().catch(() => undefined);
      await pause(wait, init?.signal ?? undefined);
      res = await this.base(url, init);
    }
    return { res, retries };
  }

  /** A response that is no SSE stream of answers: a step-up, a busy refusal, an error page, or as is. */
  private async plainAnswer(
    res: Response,
    type: string,
    requests: boolean,
    retries: number,
  ): Promise<Response> {
    if (this.stepUp && res.status === 403 && insufficientScope(res)) return stepUpAnswer(res);
    if (requests && BUSY.has(res.status) && type.includes('json')) return busyAnswer(res, retries);
    if (!res.ok && !type.includes('json')) return errorPage(res);
    return res;
  }

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
