/**
 * Ordering hints across MCP: `createMcpServer` lists a tool's `sequential` and `resource` in its
 * tools/list entry's `_meta`, the same in both eras; `connectMcp` takes them (a resource under
 * its prefix) unless the application says otherwise, ignores a hostile value with one warning,
 * and a proxy passes on the hints its tools run under.
 */
import { expect } from 'chai';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { lastValueFrom, tap, toArray } from 'rxjs';
import {
  connectMcp,
  httpTransport,
  RESOURCE_META_KEY,
  SEQUENTIAL_META_KEY,
  type McpClientOptions,
  type McpRemote,
} from '../../adapters/mcp-client/index.js';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import {
  capacityOf,
  chains,
  executeBatch,
  isSequential,
  rawTool,
  resourceOf,
  type Job,
  type Tool,
} from '../../index.js';
import { scaled } from '../support/time.js';

const SEQ = 'io.github.agenttool/sequential';
const RES = 'io.github.agenttool/resource';

/** A tool named `name` that answers its name, with `properties` as its author states them. */
const named = (name: string, properties: Partial<Tool> = {}): Tool =>
  rawTool({
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    execute: () => ({ output: name }),
    ...(properties as object),
  });

/** Tools stating every kind of ordering, and values no tool should hold. */
function servedTools(): Tool[] {
  const throwing = named('throwing');
  Object.defineProperty(throwing, 'resource', {
    get() {
      throw new Error('no resource today');
    },
  });
  return [
    named('write', { resource: 'fs' }),
    named('append', { resource: 'fs' }),
    named('migrate', { sequential: true, resource: 'db' }),
    named('per_file', { resource: (args) => `file:${String(args.path)}` }),
    named('plain'),
    // A counted resource, as a tool of a later contract may state it.
    named('pool', { resource: { key: 'pool', capacity: 2 } }),
    // Values rawTool refuses, set on a tool afterwards: a listing must still not break.
    Object.assign(named('odd', { sequential: 'yes' as unknown as boolean }), {
      resource: { key: 'pool', capacity: 0 },
    }),
    Object.assign(named('number'), { resource: 42 }),
    named('endless', { resource: { key: 'pool', capacity: Infinity } }),
    throwing,
  ];
}

const MODES = [
  { era: '2026-07-28', versionNegotiation: { mode: 'auto' } },
  { era: '2025-11-25', versionNegotiation: { mode: 'legacy' } },
] as const;

describe('createMcpServer lists each tool’s ordering hints in _meta', function () {
  this.timeout(scaled(10_000));
  let http: McpHttpServer;
  beforeEach(async () => {
    http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'ordered', version: '1' }, servedTools()),
    });
  });
  afterEach(() => http.close());

  for (const { era, versionNegotiation } of MODES)
    it(`in ${era}: sequential as true, a resource as a string or { key, capacity }, nothing for the rest`, async () => {
      const client = new ModernClient({ name: 'lister', version: '1' }, { versionNegotiation });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      try {
        expect(client.getNegotiatedProtocolVersion()).to.equal(era);
        const { tools } = await client.listTools();
        const metaOf = Object.fromEntries(tools.map((t) => [t.name, t._meta]));
        expect(metaOf).to.deep.equal({
          write: { [RES]: 'fs' },
          append: { [RES]: 'fs' },
          // Sequential takes the whole batch: its resource says nothing more.
          migrate: { [SEQ]: true },
          // A resource named per call has no one name to list.
          per_file: undefined,
          plain: undefined,
          pool: { [RES]: { key: 'pool', capacity: 2 } },
          // Values no tool should hold list nothing, and break nothing.
          odd: undefined,
          number: undefined,
          endless: undefined,
          throwing: undefined,
        });
      } finally {
        await client.close();
      }
    });

  it('the keys are exported by both adapters', async () => {
    const server = await import('../../adapters/mcp-server/index.js');
    expect([SEQUENTIAL_META_KEY, RESOURCE_META_KEY]).to.deep.equal([SEQ, RES]);
    expect([server.SEQUENTIAL_META_KEY, server.RESOURCE_META_KEY]).to.deep.equal([SEQ, RES]);
  });
});

/** Runs `jobs`, recording when each call starts (its turn has come) and when it ends, as it happens. */
async function runRecorded(jobs: Job[]): Promise<string[]> {
  const order: string[] = [];
  await lastValueFrom(
    executeBatch(jobs, { onStart: (_job, i) => void order.push(`start ${i}`) }).pipe(
      tap((event) => void (event.final && order.push(`end ${event.index}`))),
      toArray(),
    ),
  );
  return order;
}

const job = (tool: Tool, i: number, args = '{}'): Job => ({ tool, call: { id: `c${i}`, args } });

function only(remote: McpRemote, name: string): Tool {
  const found = remote.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('connectMcp takes a server’s ordering hints', function () {
  this.timeout(scaled(10_000));
  let http: McpHttpServer;
  const opened: McpRemote[] = [];
  beforeEach(async () => {
    http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'ordered', version: '1' }, servedTools()),
    });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((remote) => remote.close()));
    await http.close();
  });
  const open = async (options: McpClientOptions = {}): Promise<McpRemote> => {
    const warnings: string[] = [];
    const remote = await connectMcp(httpTransport(http.url), {
      onerror: (error) => warnings.push(error.message),
      ...options,
    });
    opened.push(remote);
    expect(warnings).to.deep.equal([]);
    return remote;
  };

  for (const { era, versionNegotiation } of MODES)
    it(`in ${era}: sequential and resource as listed, so two calls of one resource run one after another`, async () => {
      const remote = await open({ versionNegotiation });
      expect(remote.protocolVersion).to.equal(era);
      const [write, append, migrate, perFile, plain, pool] = [
        'write',
        'append',
        'migrate',
        'per_file',
        'plain',
        'pool',
      ].map((name) => only(remote, name));
      expect([write, append, plain, perFile].map((t) => resourceOf(t!))).to.deep.equal([
        'fs',
        'fs',
        '',
        '',
      ]);
      expect(isSequential(migrate!)).to.equal(true);
      // A counted resource keeps its capacity: up to two of its calls at once.
      expect(resourceOf(pool!)).to.equal('pool');
      expect(capacityOf(pool!)).to.equal(2);
      expect(pool!.resource).to.deep.equal({ key: 'pool', capacity: 2 });
      const jobs = [job(write!, 0), job(plain!, 1), job(append!, 2)];
      expect(chains(jobs)).to.deep.equal([[0, 2], [1]]);
      const order = await runRecorded([job(write!, 0), job(append!, 1)]);
      expect(order).to.deep.equal(['start 0', 'end 0', 'start 1', 'end 1']);
      // Without a resource, both start before either ends.
      const free = await runRecorded([job(plain!, 0), job(plain!, 1)]);
      expect(free.slice(0, 2)).to.deep.equal(['start 0', 'start 1']);
    });

  it('the application’s word wins: a tool named in sequential or resources takes only that', async () => {
    const claimed = await open({
      sequential: ['write'],
      resources: { mine: ['migrate'], append: () => '' },
    });
    const [write, append, migrate] = ['write', 'append', 'migrate'].map((n) => only(claimed, n));
    expect([isSequential(write!), resourceOf(write!)]).to.deep.equal([true, '']);
    // A function that names no resource lets the calls run alongside everything.
    expect([isSequential(append!), resourceOf(append!)]).to.deep.equal([false, '']);
    // The server's sequential gives way to the application's resource.
    expect([isSequential(migrate!), resourceOf(migrate!)]).to.deep.equal([false, 'mine']);
    // The tools the application does not name keep their hints.
    expect(resourceOf(only(claimed, 'pool'))).to.equal('pool');
  });

  it('orderingHints: false ignores every listing’s hints', async () => {
    const ignoring = await open({ orderingHints: false });
    for (const tool of ignoring.tools) {
      expect(isSequential(tool), tool.name).to.equal(false);
      expect(resourceOf(tool), tool.name).to.equal('');
    }
  });

  it('a listed resource takes the prefix as tool names do, so two servers’ "fs" are two resources', async () => {
    const a = await open({ prefix: 'a' });
    const b = await open({ prefix: 'b' });
    const [aWrite, bWrite] = [only(a, 'a__write'), only(b, 'b__write')];
    expect([resourceOf(aWrite), resourceOf(bWrite)]).to.deep.equal(['a__fs', 'b__fs']);
    expect(chains([job(aWrite, 0), job(bWrite, 1), job(only(a, 'a__append'), 2)])).to.deep.equal([
      [0, 2],
      [1],
    ]);
    // Without a prefix the names are the server's: the same name is the same resource.
    const [c, d] = [await open(), await open()];
    expect(chains([job(only(c, 'write'), 0), job(only(d, 'write'), 1)])).to.deep.equal([[0, 1]]);
    // The application's own resource names take no prefix.
    const e = await open({ prefix: 'e', resources: { 'shell:session': ['write'] } });
    expect(resourceOf(only(e, 'e__write'))).to.equal('shell:session');
  });
});

/** A server of SDK 1.x whose tools/list is `tools` as written, and whose calls answer "ok". */
async function scripted(
  tools: McpTool[],
  options: McpClientOptions = {},
): Promise<{ remote: McpRemote; warnings: string[] }> {
  const server = new LegacyServer(
    { name: 'scripted', version: '1' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const warnings: string[] = [];
  const remote = await connectMcp(clientSide, {
    onerror: (error) => warnings.push(error.message),
    ...options,
  });
  return { remote, warnings };
}

const listed = (name: string, meta: unknown): McpTool =>
  ({
    name,
    inputSchema: { type: 'object', properties: {} },
    _meta: meta,
  }) as McpTool;

describe('connectMcp reads a hostile listing’s hints safely', () => {
  it('ignores a value of the wrong kind, keeps the tool, and says so once to onerror', async () => {
    const { remote, warnings } = await scripted([
      listed('yes', { [SEQ]: 'yes' }),
      listed('number', { [RES]: 42 }),
      listed('long', { [RES]: 'r'.repeat(300) }),
      listed('escape', { [RES]: 'fs\u001b[31m' }),
      listed('bidi', { [RES]: { key: 'fs\u202e', capacity: 2 } }),
      listed('zero', { [RES]: { key: 'pool', capacity: 0 } }),
      listed('half', { [RES]: { key: 'pool', capacity: 1.5 } }),
      listed('both', { [SEQ]: 1, [RES]: [] }),
      // Said as they should be: taken, and nothing said.
      listed('not_sequential', { [SEQ]: false, [RES]: '' }),
      listed('counted', { [RES]: { key: 'pool', capacity: 3 } }),
      listed('others', { 'x.example/sequential': true, sequential: true, resource: 'fs' }),
    ]);
    try {
      // Every tool is listed, and none runs under a hint it was refused.
      expect(remote.tools.map((t) => t.name)).to.have.length(11);
      for (const tool of remote.tools.filter((t) => t.name !== 'counted')) {
        expect(isSequential(tool), tool.name).to.equal(false);
        expect(resourceOf(tool), tool.name).to.equal('');
      }
      expect(resourceOf(only(remote, 'counted'))).to.equal('pool');
      const seq = `_meta "${SEQ}"`;
      const res = `_meta "${RES}"`;
      expect(warnings).to.deep.equal([
        `mcp: tools/list: tool "yes": ignored ${seq} is not a boolean`,
        `mcp: tools/list: tool "number": ignored ${res} is not a string or { key, capacity } (an integer >= 1)`,
        `mcp: tools/list: tool "long": ignored ${res} names one that is longer than 128 characters (300)`,
        `mcp: tools/list: tool "escape": ignored ${res} names one that has control or invisible characters`,
        `mcp: tools/list: tool "bidi": ignored ${res} names one that has control or invisible characters`,
        `mcp: tools/list: tool "zero": ignored ${res} is not a string or { key, capacity } (an integer >= 1)`,
        `mcp: tools/list: tool "half": ignored ${res} is not a string or { key, capacity } (an integer >= 1)`,
        `mcp: tools/list: tool "both": ignored ${seq} is not a boolean`,
        `mcp: tools/list: tool "both": ignored ${res} is not a string or { key, capacity } (an integer >= 1)`,
      ]);
    } finally {
      await remote.close();
    }
  });

  it('reads the two keys as the listing’s own: a __proto__ key neither hints nor pollutes', async () => {
    const meta: unknown = JSON.parse(`{"__proto__": {"${SEQ}": true, "${RES}": "fs"}}`);
    const { remote, warnings } = await scripted([listed('proto', meta)]);
    try {
      const proto = only(remote, 'proto');
      expect([isSequential(proto), resourceOf(proto)]).to.deep.equal([false, '']);
      expect(warnings).to.deep.equal([]);
      expect(({} as Record<string, unknown>)[SEQ]).to.equal(undefined);
    } finally {
      await remote.close();
    }
  });
});

describe('a proxy passes on the ordering hints its tools run under', function () {
  this.timeout(scaled(10_000));

  /** Lists the proxy's tools (createMcpServer over `remote.tools`) as its own client sees them. */
  async function proxyListing(remote: McpRemote): Promise<Record<string, unknown>> {
    const http = await serveHttp({
      port: 0,
      factory: () => createMcpServer({ name: 'proxy', version: '1' }, remote.tools),
    });
    const client = new ModernClient({ name: 'downstream', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      const { tools } = await client.listTools();
      return Object.fromEntries(tools.map((t) => [t.name, t._meta]));
    } finally {
      await client.close();
      await http.close();
    }
  }

  const upstream = [
    listed('write', { 'x.example/owner': 'ops', [RES]: 'fs' }),
    listed('migrate', { [SEQ]: true }),
    listed('plain', undefined),
  ];

  it('under its prefix, the upstream’s other _meta kept as it came', async () => {
    const { remote } = await scripted(upstream, { prefix: 'up' });
    try {
      expect(await proxyListing(remote)).to.deep.equal({
        up__write: { 'x.example/owner': 'ops', [RES]: 'up__fs' },
        up__migrate: { [SEQ]: true },
        up__plain: undefined,
      });
    } finally {
      await remote.close();
    }
  });

  it('the proxy application’s word, when it gives one', async () => {
    const { remote } = await scripted(upstream, {
      sequential: ['write'],
      resources: { 'db:main': ['migrate'] },
    });
    try {
      expect(await proxyListing(remote)).to.deep.equal({
        write: { 'x.example/owner': 'ops', [SEQ]: true },
        migrate: { [RES]: 'db:main' },
        plain: undefined,
      });
    } finally {
      await remote.close();
    }
  });

  it('none, when the proxy ignores its upstream’s hints', async () => {
    const { remote } = await scripted(upstream, { orderingHints: false });
    try {
      expect(await proxyListing(remote)).to.deep.equal({
        write: { 'x.example/owner': 'ops' },
        migrate: {},
        plain: undefined,
      });
    } finally {
      await remote.close();
    }
  });
});
