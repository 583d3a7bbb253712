/**
 * OpenTelemetry across MCP (docs/telemetry.md): the client's `tools/call` CLIENT span carries its
 * trace in `_meta`, the server's `tools/call` SERVER span and its `execute_tool` span continue it,
 * over HTTP, in both eras and through a proxy, with the MCP attributes and durations of the
 * conventions. One process plays both sides here; the spans are read from one exporter.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { executeBatch, tool, type ToolCall } from '../../index.js';
import { startTracing, type Tracing } from '../support/otel.js';
import { scaled } from '../support/time.js';

let seen: ToolCall | undefined;
const weather = tool({
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }, context) => {
    seen = context.call;
    if (city === 'Atlantis') throw new Error('no such city');
    return `sunny in ${city}`;
  },
});

function ids(span: ReadableSpan): { trace: string; span: string; parent: string | undefined } {
  return {
    trace: span.spanContext().traceId,
    span: span.spanContext().spanId,
    parent: span.parentSpanContext?.spanId,
  };
}

describe('telemetry across MCP', function () {
  this.timeout(scaled(20_000));
  let tracing: Tracing;
  let upstream: McpHttpServer;
  beforeEach(async () => {
    seen = undefined;
    tracing = startTracing();
    upstream = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'up', version: '1' }, [weather]),
    });
  });
  afterEach(async () => {
    await upstream.close();
    await tracing.stop();
  });

  /** The execute_tool spans of the client's batch and of the server under `server`. */
  function calls(server: ReadableSpan): { clientCall: ReadableSpan; serverCall: ReadableSpan } {
    const all = tracing.named('execute_tool get_weather');
    const under = (s: ReadableSpan) => s.parentSpanContext?.spanId === server.spanContext().spanId;
    return { clientCall: all.find((s) => !under(s))!, serverCall: all.find(under)! };
  }

  async function callThrough(url: string, mode: 'auto' | 'legacy', city: string) {
    const remote = await connectMcp(httpTransport(url), { versionNegotiation: { mode } });
    try {
      const tracer = trace.getTracer('app');
      return await tracer.startActiveSpan('turn', async (turn) => {
        const events = await lastValueFrom(
          executeBatch([
            { tool: remote.tools[0]!, call: { id: 'c1', args: JSON.stringify({ city }) } },
          ]).pipe(toArray()),
        );
        turn.end();
        return events;
      });
    } finally {
      await remote.close();
    }
  }

  for (const mode of ['auto', 'legacy'] as const) {
    const era = mode === 'auto' ? '2026-07-28' : '2025-11-25';

    it(`${era}: turn > execute_tool > tools/call CLIENT > tools/call SERVER > execute_tool, one trace`, async () => {
      const events = await callThrough(upstream.url, mode, 'Paris');
      expect(events.at(-1)!.result?.output).to.equal('sunny in Paris');
      const turn = tracing.named('turn')[0]!;
      const client = tracing.spans().find((s) => s.kind === SpanKind.CLIENT)!;
      const server = tracing.spans().find((s) => s.kind === SpanKind.SERVER)!;
      const { clientCall, serverCall } = calls(server);
      expect(client.name).to.equal('tools/call get_weather');
      expect(server.name).to.equal('tools/call get_weather');
      // The server's execute_tool ends first: it is the innermost.
      const chain = [turn, clientCall, client, server, serverCall].map(ids);
      for (const link of chain) expect(link.trace).to.equal(chain[0]!.trace);
      expect(chain.slice(1).map((l) => l.parent)).to.deep.equal(
        chain.slice(0, -1).map((l) => l.span),
      );
      // The tool on the server runs under its execute_tool span.
      expect(seen!.trace!.traceparent).to.equal(`00-${chain[4]!.trace}-${chain[4]!.span}-01`);

      expect(client.attributes).to.include({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': era,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': Number(upstream.endpoint.port),
      });
      expect(client.attributes['jsonrpc.request.id']).to.be.a('string');
      expect(server.attributes).to.include({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': era,
      });
      // 2025-11-25 calls belong to a session, which both sides name; 2026-07-28 has none.
      if (mode === 'legacy') {
        expect(server.attributes['mcp.session.id']).to.be.a('string');
        expect(client.attributes['mcp.session.id']).to.equal(server.attributes['mcp.session.id']);
      } else {
        expect(server.attributes).not.to.have.property('mcp.session.id');
      }
      expect(serverCall!.attributes['gen_ai.tool.call.id']).to.be.a('string');
      for (const span of [client, server]) expect(span.status.code).to.equal(SpanStatusCode.UNSET);
    });

    it(`${era}: a tool's error result is tool_error on both MCP spans, and its kind on execute_tool`, async () => {
      const events = await callThrough(upstream.url, mode, 'Atlantis');
      expect(events.at(-1)!.error?.message).to.contain('no such city');
      const client = tracing.spans().find((s) => s.kind === SpanKind.CLIENT)!;
      const server = tracing.spans().find((s) => s.kind === SpanKind.SERVER)!;
      for (const span of [client, server]) {
        expect(span.attributes['error.type']).to.equal('tool_error');
        expect(span.status.code).to.equal(SpanStatusCode.ERROR);
        expect(span.status.message).to.match(/no such city$/);
      }
      const { clientCall, serverCall } = calls(server);
      expect(serverCall.attributes['error.type']).to.equal('Error');
      expect(clientCall.attributes['error.type']).to.equal('remote_tool');
    });
  }

  it('keeps one trace through a proxy: its SERVER span, its call, its own CLIENT span upstream', async () => {
    const upstreamRemote = await connectMcp(httpTransport(upstream.url));
    const proxy = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'proxy', version: '1' }, upstreamRemote.tools),
    });
    try {
      await callThrough(proxy.url, 'auto', 'Oslo');
    } finally {
      await proxy.close();
      await upstreamRemote.close();
    }
    const spans = tracing.spans();
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).to.equal(1);
    expect(spans.filter((s) => s.kind === SpanKind.CLIENT)).to.have.length(2);
    expect(spans.filter((s) => s.kind === SpanKind.SERVER)).to.have.length(2);
    // Every span but the turn has its parent among the spans: nothing is orphaned.
    const known = new Set(spans.map((s) => s.spanContext().spanId));
    for (const span of spans.filter((s) => s.name !== 'turn'))
      expect(known.has(span.parentSpanContext!.spanId), span.name).to.equal(true);
  });

  it('records mcp.client.operation.duration and mcp.server.operation.duration', async () => {
    await callThrough(upstream.url, 'auto', 'Rome');
    for (const name of ['mcp.client.operation.duration', 'mcp.server.operation.duration']) {
      const metric = await tracing.metric(name);
      expect(metric, name).not.to.equal(undefined);
      expect(metric!.descriptor.unit).to.equal('s');
      expect(metric!.dataPoints[0]!.attributes).to.include({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'get_weather',
      });
    }
  });
});
