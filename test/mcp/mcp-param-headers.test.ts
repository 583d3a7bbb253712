/**
 * `x-mcp-header` (MCP 2026-07-28): a tool argument mirrored into an `Mcp-Param-*` header. The
 * server checks the headers against the body; `connectMcp` sends them; both refuse a broken
 * declaration.
 */
import { expect } from 'chai';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Observable } from 'rxjs';
import { z } from 'zod';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerDeclarations,
  headerMismatch,
  paramHeaders,
} from '../../adapters/mcp-shared/mcp-param-headers.js';
import { rawTool, tool, type JsonSchema, type Tool, type ToolEvent } from '../../index.js';
import { postModern } from '../support/modern.js';
import { runTool } from '../support/run.js';
import { scaled } from '../support/time.js';

/** A tool with `schema` that answers with its arguments. */
function echoing(name: string, schema: JsonSchema): Tool {
  return rawTool({
    name,
    description: 'Answers with its arguments.',
    parameters: schema,
    execute: (call) =>
      new Observable<ToolEvent>((subscriber) => {
        subscriber.next({ final: true, result: { output: call.args || '{}' } });
        subscriber.complete();
      }),
  });
}

const QUERY: JsonSchema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    shard: { type: 'integer', 'x-mcp-header': 'Shard' },
    target: {
      type: 'object',
      properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } },
    },
    query: { type: 'string' },
  },
  required: ['query'],
};

describe('x-mcp-header: the declarations of a schema', () => {
  it('finds each declared argument by its path of properties, in the order declared', () => {
    expect(headerDeclarations(QUERY)).to.deep.equal([
      { path: ['region'], name: 'Region', type: 'string' },
      { path: ['shard'], name: 'Shard', type: 'integer' },
      { path: ['target', 'dry'], name: 'Dry-Run', type: 'boolean' },
    ]);
    expect(
      headerDeclarations({ type: 'object', properties: { a: { type: 'string' } } }),
    ).to.deep.equal([]);
  });

  it('refuses, in one line naming the place, each rule the revision sets', () => {
    const under = (property: JsonSchema): JsonSchema => ({
      type: 'object',
      properties: { a: property },
    });
    const cases: [JsonSchema, RegExp][] = [
      [
        under({ type: 'number', 'x-mcp-header': 'A' }),
        /^a: .*string, integer or boolean.*"number"/,
      ],
      [under({ type: ['string', 'null'], 'x-mcp-header': 'A' }), /^a: .*one type/],
      [under({ type: 'string', 'x-mcp-header': '' }), /^a: .*header name/],
      [under({ type: 'string', 'x-mcp-header': 'Bad Name' }), /^a: .*"Bad Name"/],
      [under({ type: 'string', 'x-mcp-header': 'Line\r\nX' }), /^a: .*header name/],
      [under({ type: 'string', 'x-mcp-header': 7 }), /^a: .*got 7$/],
      [
        under({ type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } }),
        /^a\.<items>: .*reached from the root through "properties" alone/,
      ],
      [
        under({ anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] }),
        /^a\.<anyOf>: .*"properties" alone/,
      ],
      [{ type: 'object', $defs: { d: { type: 'string', 'x-mcp-header': 'A' } } }, /^<\$defs>: /],
      [{ type: 'object', 'x-mcp-header': 'A' }, /^the schema's root: /],
      [
        {
          type: 'object',
          properties: {
            a: { type: 'string', 'x-mcp-header': 'Tenant' },
            b: { type: 'string', 'x-mcp-header': 'tenant' },
          },
        },
        /^b: x-mcp-header "tenant" is declared twice \(also on a; header names ignore case\)/,
      ],
    ];
    for (const [schema, reason] of cases) {
      const found = headerDeclarations(schema);
      expect(found, JSON.stringify(schema)).to.be.a('string').that.matches(reason);
    }
  });

  it('walks a schema nested 10,000 deep without overflowing the stack', () => {
    let schema: JsonSchema = { type: 'string', 'x-mcp-header': 'Deep' };
    for (let i = 0; i < 10_000; i++) schema = { type: 'object', properties: { p: schema } };
    const found = headerDeclarations(schema);
    expect(found).to.have.length(1);
    expect((found as readonly { path: readonly string[] }[])[0]!.path).to.have.length(10_000);
  });
});

describe('x-mcp-header: values as headers', () => {
  it("encodes as the revision's examples do, and decodes back", () => {
    const examples: [string, string][] = [
      ['us-west1', 'us-west1'],
      ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [' padded ', '=?base64?IHBhZGRlZCA=?='],
      ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
      ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ];
    for (const [value, header] of examples) {
      expect(encodeHeaderValue(value)).to.equal(header);
      expect(decodeHeaderValue(header)).to.equal(value);
    }
  });

  it('takes a value without the whole =?base64?...?= wrapping literally, and refuses broken Base64', () => {
    expect(decodeHeaderValue('SGVsbG8=')).to.equal('SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).to.equal('=?base64?SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).to.equal(undefined);
    expect(decodeHeaderValue('=?base64?SGVs!!!bG8=?=')).to.equal(undefined);
    expect(decodeHeaderValue('=?base64?/w==?=')).to.equal(undefined); // not UTF-8
    expect(decodeHeaderValue('caf\u00e9')).to.equal(undefined); // not ASCII
  });

  it('sends a header for each declared argument present; none for one absent or null', () => {
    const declared = headerDeclarations(QUERY) as Parameters<typeof paramHeaders>[0];
    expect(
      paramHeaders(declared, { region: 'eu', shard: 3, target: { dry: false }, query: 'q' }),
    ).to.deep.equal({
      'Mcp-Param-Region': 'eu',
      'Mcp-Param-Shard': '3',
      'Mcp-Param-Dry-Run': 'false',
    });
    expect(paramHeaders(declared, { region: null, query: 'q', target: 'x' })).to.deep.equal({});
  });

  it('finds a header that does not say what the body says', () => {
    const declared = headerDeclarations(QUERY) as Parameters<typeof headerMismatch>[0];
    const check = (args: unknown, headers: Record<string, string>) =>
      headerMismatch(declared, args, (name) => headers[name]);
    expect(check({ region: 'eu', query: 'q' }, { 'mcp-param-region': 'eu' })).to.equal(undefined);
    expect(check({ shard: 42 }, { 'mcp-param-shard': '42.0' })).to.equal(undefined);
    expect(check({ query: 'q' }, {})).to.equal(undefined);
    expect(check({ region: 'eu' }, {})).to.equal(
      'Header mismatch: Mcp-Param-Region is missing; arguments.region is set',
    );
    expect(check({ region: 'eu' }, { 'mcp-param-region': 'us' })).to.equal(
      'Header mismatch: Mcp-Param-Region says "us", arguments.region is "eu"',
    );
    expect(check({ query: 'q' }, { 'mcp-param-region': 'us' })).to.equal(
      'Header mismatch: Mcp-Param-Region is set but arguments.region is not',
    );
    expect(check({ shard: 42 }, { 'mcp-param-shard': '0x2A' })).to.match(/says "0x2A"/);
    expect(check({ target: { dry: true } }, { 'mcp-param-dry-run': 'True' })).to.match(
      /Dry-Run says "True"/,
    );
  });
});

describe('x-mcp-header: served over HTTP', function () {
  this.timeout(scaled(20_000));
  let http: McpHttpServer;
  const errors: string[] = [];
  const zodRegion = tool({
    name: 'zod_region',
    description: 'A zod tool whose region is mirrored.',
    parameters: z.object({
      region: z.string().meta({ 'x-mcp-header': 'Region' }),
      note: z.string().optional(),
    }),
    execute: ({ region }) => `ran in ${region}`,
  });
  const tools = [
    echoing('query', QUERY),
    echoing('broken', {
      type: 'object',
      properties: { n: { type: 'number', 'x-mcp-header': 'N' } },
    }),
    zodRegion,
  ];

  before(async () => {
    http = await serveHttp({
      port: 0,
      stateless: true,
      factory: () =>
        createMcpServer({ name: 'headers', version: '1' }, tools, {
          onError: (e) => errors.push(e.message),
        }),
    });
  });
  after(() => http.close());

  const call = (args: Record<string, unknown>, headers: Record<string, string>, name = 'query') =>
    postModern(http.url, 'tools/call', { name, arguments: args }, headers);

  it('lists the declarations as given (a zod .meta() kept), and leaves out a broken one, saying why', async () => {
    const { body } = await postModern(http.url, 'tools/list', {});
    const listed = (body.result as { tools: { name: string; inputSchema: JsonSchema }[] }).tools;
    expect(listed.map((t) => t.name)).to.deep.equal(['query', 'zod_region']);
    expect(listed[0]!.inputSchema).to.deep.equal(QUERY);
    const region = (listed[1]!.inputSchema.properties as Record<string, JsonSchema>).region;
    expect(region).to.deep.equal({ type: 'string', 'x-mcp-header': 'Region' });
    expect(errors).to.deep.equal([
      'tool "broken": schema: n: x-mcp-header may only be on a string, integer or boolean property (one type), got "number"',
    ]);
  });

  it('runs a call whose headers say what its arguments say, Base64 and numbers included', async () => {
    const ok = await call(
      { region: 'Zürich', shard: 7, target: { dry: true }, query: 'q' },
      {
        'mcp-param-region': encodeHeaderValue('Zürich'),
        'mcp-param-shard': '7.0',
        'mcp-param-dry-run': 'true',
      },
    );
    expect(ok.status).to.equal(200);
    const text = (ok.body.result as { content: { text: string }[] }).content[0]!.text;
    expect(JSON.parse(text)).to.deep.include({ region: 'Zürich', shard: 7 });
    const plain = await call({ query: 'q' }, {});
    expect(plain.status).to.equal(200);
  });

  it('refuses with 400 and HeaderMismatch (-32020) a header missing, different, broken or unasked', async () => {
    const refusals: [Record<string, unknown>, Record<string, string>, string][] = [
      [{ region: 'eu', query: 'q' }, {}, 'Mcp-Param-Region is missing'],
      [{ region: 'eu', query: 'q' }, { 'mcp-param-region': 'us' }, 'says "us"'],
      [
        { region: 'Hello', query: 'q' },
        { 'mcp-param-region': '=?base64?SGVsbG8?=' },
        'not a valid header value',
      ],
      [{ query: 'q' }, { 'mcp-param-region': 'eu' }, 'is set but arguments.region is not'],
    ];
    for (const [args, headers, reason] of refusals) {
      const { status, body } = await call(args, headers);
      expect(status, reason).to.equal(400);
      const error = body.error as { code: number; message: string };
      expect(error.code).to.equal(-32020);
      expect(error.message).to.contain(reason);
      expect(body.id).to.equal(1);
    }
  });

  it('checks a zod tool the same way', async () => {
    expect((await call({ region: 'eu' }, {}, 'zod_region')).status).to.equal(400);
    const ok = await call({ region: 'eu' }, { 'mcp-param-region': 'eu' }, 'zod_region');
    expect((ok.body.result as { content: { text: string }[] }).content[0]!.text).to.equal(
      'ran in eu',
    );
  });

  it('connectMcp sends the headers in 2026-07-28 and leaves out a broken tool, saying why', async () => {
    const seen: Record<string, string>[] = [];
    const fetching: typeof fetch = (url, init) => {
      const headers = new Headers(init?.headers);
      if (headers.get('mcp-method') === 'tools/call')
        seen.push(
          Object.fromEntries(
            [...(headers as unknown as Iterable<[string, string]>)].filter(([name]) =>
              name.startsWith('mcp-param-'),
            ),
          ),
        );
      return fetch(url, init);
    };
    const reported: string[] = [];
    const remote = await connectMcp(
      new StreamableHTTPClientTransport(http.endpoint, { fetch: fetching }),
      {
        onerror: (e) => reported.push(e.message),
      },
    );
    try {
      expect(remote.protocolVersion).to.equal('2026-07-28');
      expect(remote.tools.map((t) => t.name)).to.deep.equal(['query', 'zod_region']);
      const query = remote.tools.find((t) => t.name === 'query')!;
      const { events, error } = await runTool(query, {
        region: 'Hello, 世界',
        shard: -7,
        target: { dry: false },
        query: 'q',
      });
      expect(error).to.equal(undefined);
      expect(events.at(-1)!.final).to.equal(true);
      expect(seen).to.deep.equal([
        {
          'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=',
          'mcp-param-shard': '-7',
          'mcp-param-dry-run': 'false',
        },
      ]);
    } finally {
      await remote.close();
    }
  });

  it('connectMcp leaves out a listed tool whose declarations are broken', async () => {
    // A server that lists what agenttool would not serve: its own tools/list answer.
    const liar = createMcpServer({ name: 'liar', version: '1' }, []);
    liar.setRequestHandler('tools/list', () => ({
      tools: [
        { name: 'fine', inputSchema: QUERY as { type: 'object' } },
        {
          name: 'nested',
          inputSchema: {
            type: 'object',
            properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } },
          },
        },
      ],
    }));
    const served = await serveHttp({ port: 0, stateless: true, factory: () => liar });
    const reported: string[] = [];
    const remote = await connectMcp(new StreamableHTTPClientTransport(served.endpoint), {
      onerror: (e) => reported.push(e.message),
    });
    try {
      expect(remote.tools.map((t) => t.name)).to.deep.equal(['fine']);
      expect(reported).to.deep.equal([
        'mcp: tools/list: left out tool "nested": its x-mcp-header: a.<items>: x-mcp-header may only be on a property reached from the root through "properties" alone (not under items, anyOf/oneOf/allOf/not, if/then/else, additionalProperties or $defs)',
      ]);
    } finally {
      await remote.close();
      await served.close();
    }
  });

  it('lets a page of a listed origin send Mcp-Param-* headers (CORS preflight)', async () => {
    const cors = await serveHttp({
      port: 0,
      allowedOrigins: ['http://app.example'],
      factory: () => createMcpServer({ name: 'cors', version: '1' }, tools),
    });
    try {
      const response = await fetch(cors.url, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'mcp-method, mcp-param-region, x-other',
        },
      });
      expect(response.status).to.equal(204);
      const allowed = response.headers.get('access-control-allow-headers')!.split(', ');
      expect(allowed).to.include('mcp-param-region');
      expect(allowed).not.to.include('x-other');
    } finally {
      await cors.close();
    }
  });
});
