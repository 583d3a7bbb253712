/**
 * W3C trace context through MCP's `_meta` (`traceparent`, `tracestate`): a served call carries its
 * request's on `context.call.trace`, a remote tool sends its call's on, and a proxy passes it
 * through unchanged, in both eras.
 */
import { expect } from 'chai';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { traceMeta, traceOf } from '../../lib/trace-context.js';
import { executeBatch, rawTool, type TraceContext } from '../../index.js';
import { ENVELOPE, postModern } from '../support/modern.js';
import { Observable } from 'rxjs';
import { scaled } from '../support/time.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const STATE = 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7';

/** The trace context each call of `traced` ran under, in call order. */
const seen: (TraceContext | null)[] = [];
const traced = rawTool({
  name: 'traced',
  description: 'Answers with the trace context its call runs under.',
  execute: (_call, context) =>
    new Observable((subscriber) => {
      seen.push(context.call.trace ?? null);
      subscriber.next({
        final: true,
        result: { output: JSON.stringify(context.call.trace ?? null) },
      });
      subscriber.complete();
    }),
});

describe('trace context in _meta: reading and writing', () => {
  it('keeps a valid traceparent and tracestate', () => {
    expect(traceOf({ traceparent: PARENT, tracestate: STATE })).to.deep.equal({
      traceparent: PARENT,
      tracestate: STATE,
    });
    expect(traceOf({ traceparent: PARENT })).to.deep.equal({ traceparent: PARENT });
    // A later version may carry more fields.
    const later = '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes';
    expect(traceOf({ traceparent: later })).to.deep.equal({ traceparent: later });
  });

  it('drops what breaks the W3C format, and a tracestate without a traceparent', () => {
    for (const traceparent of [
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331',
      42,
    ])
      expect(traceOf({ traceparent }), String(traceparent)).to.equal(undefined);
    expect(traceOf({ tracestate: STATE })).to.equal(undefined);
    expect(traceOf(null)).to.equal(undefined);
    expect(traceOf({ traceparent: PARENT, tracestate: 'x'.repeat(513) })).to.deep.equal({
      traceparent: PARENT,
    });
    expect(traceOf({ traceparent: PARENT, tracestate: 'a=\n' })).to.deep.equal({
      traceparent: PARENT,
    });
    expect(traceMeta({ traceparent: 'nonsense' })).to.deep.equal({});
  });
});

describe('trace context through served calls, remote tools and a proxy', function () {
  this.timeout(scaled(20_000));
  let upstream: McpHttpServer;

  before(async () => {
    upstream = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'upstream', version: '1' }, [traced]),
    });
  });
  after(() => upstream.close());
  beforeEach(() => (seen.length = 0));

  it('a 2026-07-28 request: the call runs under its _meta trace context; a bad one is dropped', async () => {
    const meta = { ...ENVELOPE, traceparent: PARENT, tracestate: STATE };
    await postModern(upstream.url, 'tools/call', { name: 'traced' }, {}, meta);
    await postModern(
      upstream.url,
      'tools/call',
      { name: 'traced' },
      {},
      {
        ...ENVELOPE,
        traceparent: 'garbage',
      },
    );
    await postModern(upstream.url, 'tools/call', { name: 'traced' });
    expect(seen).to.deep.equal([{ traceparent: PARENT, tracestate: STATE }, null, null]);
  });

  it('a 2025-11-25 request: the same', async () => {
    const client = new LegacyClient({ name: 'legacy', version: '1' });
    await client.connect(new LegacyHttpTransport(upstream.endpoint));
    try {
      await client.callTool({ name: 'traced', arguments: {}, _meta: { traceparent: PARENT } });
    } finally {
      await client.close();
    }
    expect(seen).to.deep.equal([{ traceparent: PARENT }]);
  });

  for (const mode of ['auto', 'legacy'] as const) {
    it(`connectMcp (${mode === 'auto' ? '2026-07-28' : '2025-11-25'}) sends a job's trace context, and a proxy passes it through`, async () => {
      const direct = await connectMcp(httpTransport(upstream.url), {
        versionNegotiation: { mode },
      });
      const proxy = await serveHttp({
        port: 0,
        factory: () => createMcpServer({ name: 'proxy', version: '1' }, direct.tools),
      });
      const viaProxy = await connectMcp(httpTransport(proxy.url), {
        versionNegotiation: { mode },
      });
      try {
        const tool = (remote: typeof direct) => remote.tools.find((t) => t.name === 'traced')!;
        const jobs = [
          { tool: tool(direct), call: { id: 'a', args: '', trace: { traceparent: PARENT } } },
          {
            tool: tool(viaProxy),
            call: { id: 'b', args: '', trace: { traceparent: PARENT, tracestate: STATE } },
          },
          { tool: tool(viaProxy), call: { id: 'c', args: '' } },
        ];
        for (const job of jobs) await lastValueFrom(executeBatch([job]).pipe(toArray()));
        expect(seen).to.deep.equal([
          { traceparent: PARENT },
          { traceparent: PARENT, tracestate: STATE },
          null,
        ]);
      } finally {
        await viaProxy.close();
        await proxy.close();
        await direct.close();
      }
    });
  }
});
