/**
 * MCP's spans and durations per the OpenTelemetry MCP conventions (docs/telemetry.md), for the
 * adapters (which reach it through span-hook.ts, so a bundle without telemetry carries none of
 * it): a `tools/call {name}` CLIENT span around each call `connectMcp`'s tools send, a SERVER span around
 * each call `createMcpServer` serves, parented on the `traceparent` its request carries, and the
 * `mcp.client.operation.duration` / `mcp.server.operation.duration` histograms. Made only when the
 * application registered a provider (open-telemetry.ts); otherwise `open` gives undefined.
 *
 * @module
 */
import type { TraceContext } from '../contract.js';
import {
  activeTelemetry,
  continuing,
  errorType,
  now,
  SPAN_KIND,
  STATUS_ERROR,
  traceContextOf,
  type Durations,
  type OtelAttributes,
  type OtelContext,
  type OtelSpan,
} from './open-telemetry.js';

/** What a span says of the peer and the protocol: attributes of the conventions. */
export interface McpPeer {
  /** `mcp.protocol.version`. */
  readonly protocolVersion?: string;
  /** `mcp.session.id`, for a request that is part of a session. */
  readonly sessionId?: string;
  /** `network.transport`: `tcp` over HTTP, `pipe` over stdio. */
  readonly transport?: 'tcp' | 'pipe';
  /** `server.address` and `server.port` of the server a client calls. */
  readonly address?: string;
  readonly port?: number;
}

/** One MCP request's span (when tracing) and its start (for its duration). */
export class McpSpan {
  private ended = false;
  private constructor(
    private readonly side: 'client' | 'server',
    private readonly span: OtelSpan | undefined,
    private readonly durations: Durations | undefined,
    private readonly attributes: OtelAttributes,
    /** The context the request's work runs in: the span's. */
    readonly context: OtelContext | undefined,
    private readonly start: number,
  ) {}

  /**
   * A `tools/call` span for `tool`: CLIENT, under the active span (or, with none, the remote one
   * `trace` names); SERVER, under the one `trace` names (the request's `_meta`). Undefined when
   * the application traces nothing and measures nothing.
   */
  static open(
    side: 'client' | 'server',
    tool: string,
    peerOf: McpPeer | (() => McpPeer),
    trace: TraceContext | undefined,
  ): McpSpan | undefined {
    const active = activeTelemetry();
    if (active === undefined) return undefined;
    const { otel, tracer, durations } = active;
    const peer = typeof peerOf === 'function' ? peerOf() : peerOf;
    const attributes: OtelAttributes = {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
    };
    if (peer.protocolVersion !== undefined && peer.protocolVersion !== '')
      attributes['mcp.protocol.version'] = peer.protocolVersion;
    if (peer.transport !== undefined) attributes['network.transport'] = peer.transport;
    let span: OtelSpan | undefined;
    let context: OtelContext | undefined;
    if (tracer !== undefined) {
      const spanAttributes: OtelAttributes = { ...attributes };
      if (peer.sessionId !== undefined) spanAttributes['mcp.session.id'] = peer.sessionId;
      if (peer.transport === 'tcp') spanAttributes['network.protocol.name'] = 'http';
      if (side === 'client' && peer.address !== undefined) {
        spanAttributes['server.address'] = peer.address;
        spanAttributes['server.port'] = peer.port;
      }
      const ambient = otel.context.active();
      // A server's parent is its request's trace; a client's, the span it runs in, if any.
      const parent =
        side === 'server'
          ? continuing(otel, otel.ROOT_CONTEXT, trace)
          : otel.trace.getSpan(ambient) === undefined
            ? continuing(otel, ambient, trace)
            : ambient;
      span = tracer.startSpan(
        `tools/call ${tool}`,
        {
          kind: side === 'client' ? SPAN_KIND.CLIENT : SPAN_KIND.SERVER,
          attributes: spanAttributes,
        },
        parent,
      );
      context = otel.trace.setSpan(parent, span);
    }
    return new McpSpan(side, span, durations, attributes, context, now());
  }

  /** The trace context the request carries on (client) or its work runs under (server). */
  get trace(): TraceContext | undefined {
    return this.span === undefined ? undefined : traceContextOf(this.span.spanContext());
  }

  /** The JSON-RPC id of the request, once known. */
  requestId(id: string | number | undefined): void {
    if (id !== undefined) this.span?.setAttribute('jsonrpc.request.id', String(id));
  }

  /**
   * Ends the span: success; a tool's error result (`isError`, error.type `tool_error`); or a
   * failure, its error.type the JSON-RPC error code when it has one, else its kind.
   */
  end(outcome: { error?: unknown; toolError?: string }): void {
    if (this.ended) return;
    this.ended = true;
    let type: string | undefined;
    let message: string | undefined;
    const { error, toolError } = outcome;
    if (toolError !== undefined) {
      type = 'tool_error';
      message = toolError;
    } else if (error !== undefined) {
      const code = jsonRpcCode(error);
      type =
        code !== undefined ? String(code) : error instanceof Error ? errorType(error) : '_OTHER';
      message = error instanceof Error ? error.message : String(error);
      if (code !== undefined) this.span?.setAttribute('rpc.response.status_code', String(code));
    }
    const span = this.span;
    if (span !== undefined) {
      if (type !== undefined) {
        span.setAttribute('error.type', type);
        span.setStatus({ code: STATUS_ERROR, message });
      }
      span.end();
    }
    if (this.durations !== undefined) {
      const attributes =
        type === undefined ? this.attributes : { ...this.attributes, 'error.type': type };
      const histogram =
        this.side === 'client' ? this.durations.mcpClient : this.durations.mcpServer;
      histogram.record((now() - this.start) / 1000, attributes);
    }
  }
}

/** The JSON-RPC error code an error carries (the SDK's ProtocolError, a peer's answer), if any. */
function jsonRpcCode(error: unknown): number | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && Number.isInteger(code) && code < 0) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
