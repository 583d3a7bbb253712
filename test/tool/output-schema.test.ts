/**
 * A local tool's `outputSchema`: declared with `tool()`, each final value checked against it and
 * carried as data (`ToolResult.structured`), served over MCP as the tool's `outputSchema` with
 * `structuredContent` (which the official SDK's client checks), and read back by `connectMcp`.
 */
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as v from 'valibot';
import { expect } from 'chai';
import { z } from 'zod';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { batchResults, SchemaError, tool, ToolPanicError } from '../../index.js';
import { scaled } from '../support/time.js';

const forecast = tool({
  name: 'forecast',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  outputSchema: z.object({ city: z.string(), celsius: z.number(), sky: z.enum(['sun', 'rain']) }),
  execute: ({ city }) =>
    city === 'Nowhere'
      ? ({ city, celsius: 'warm', sky: 'sun' } as never)
      : { city, celsius: 21, sky: 'sun' as const },
});

describe('outputSchema: a local tool says the shape of what it returns', () => {
  it('lists it in canonical form and carries each final value as data beside its JSON text', async () => {
    expect(forecast.outputSchema).to.deep.equal({
      type: 'object',
      properties: {
        city: { type: 'string' },
        celsius: { type: 'number' },
        sky: { type: 'string', enum: ['sun', 'rain'] },
      },
      required: ['city', 'celsius', 'sky'],
    });
    const [settled] = await batchResults([
      { tool: forecast, call: { id: 'c', args: '{"city":"Oslo"}' } },
    ]);
    expect(settled!.result).to.deep.equal({
      output: '{"city":"Oslo","celsius":21,"sky":"sun"}',
      structured: { city: 'Oslo', celsius: 21, sky: 'sun' },
    });
  });

  it('fails a call whose value does not fit, naming the first problem, and only that call', async () => {
    const settled = await batchResults([
      { tool: forecast, call: { id: 'a', args: '{"city":"Nowhere"}' } },
      { tool: forecast, call: { id: 'b', args: '{"city":"Rome"}' } },
    ]);
    expect(settled[0]!.error).to.be.instanceOf(ToolPanicError);
    expect(settled[0]!.error!.message).to.equal(
      'tool "forecast" panicked: its value does not match its outputSchema: celsius: expected number, got "warm"',
    );
    expect(settled[1]!.result!.structured).to.deep.equal({ city: 'Rome', celsius: 21, sky: 'sun' });
  });

  it('takes a Standard Schema or a JSON Schema too, and refuses one that is not of an object', () => {
    const viaValibot = tool({
      name: 'v',
      description: '',
      outputSchema: v.object({ n: v.number() }),
      execute: () => ({ n: 1 }),
    });
    expect(viaValibot.outputSchema).to.deep.equal({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
    const plain = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(
      tool({ name: 'j', description: '', outputSchema: plain, execute: () => ({ n: 1 }) })
        .outputSchema,
    ).to.equal(plain);
    expect(() =>
      tool({ name: 's', description: '', outputSchema: { type: 'string' }, execute: () => 'x' }),
    ).to.throw(
      SchemaError,
      'tool "s (outputSchema)": schema: an output schema must be an object schema',
    );
  });
});

describe('outputSchema over MCP', function () {
  this.timeout(scaled(20_000));
  let server: McpHttpServer;
  before(async () => {
    server = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'weather', version: '1' }, [forecast]),
    });
  });
  after(() => server.close());

  it('serves the outputSchema and structuredContent, which the SDK’s own client checks and accepts', async () => {
    const client = new LegacyClient({ name: 'sdk', version: '1' });
    await client.connect(new LegacyHttpTransport(server.endpoint));
    try {
      const { tools } = await client.listTools();
      expect(tools[0]!.outputSchema).to.deep.equal(forecast.outputSchema);
      const result = await client.callTool({ name: 'forecast', arguments: { city: 'Lima' } });
      expect(result.structuredContent).to.deep.equal({ city: 'Lima', celsius: 21, sky: 'sun' });
      expect(result.content).to.deep.equal([
        { type: 'text', text: '{"city":"Lima","celsius":21,"sky":"sun"}' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('reaches connectMcp’s tool as its outputSchema, and each result’s data as structured', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const remote = await connectMcp(httpTransport(server.url), { versionNegotiation: { mode } });
      try {
        const remoteTool = remote.tools[0]!;
        expect(remoteTool.outputSchema, mode).to.deep.equal(forecast.outputSchema);
        const [settled] = await batchResults([
          { tool: remoteTool, call: { id: 'c', args: '{"city":"Kyiv"}' } },
        ]);
        expect(settled!.result!.structured, mode).to.deep.equal({
          city: 'Kyiv',
          celsius: 21,
          sky: 'sun',
        });
      } finally {
        await remote.close();
      }
    }
  });
});
