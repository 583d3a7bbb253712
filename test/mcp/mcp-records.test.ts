import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connectMcp, RECORDS_META_KEY, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer, type McpServerOptions } from '../../adapters/mcp-server/index.js';
import { tool, type Recordable, type Tool, type ToolCall, type ToolRecord } from '../../index.js';
import { batchResults, executeBatch, type Job } from '../../operators/index.js';
import { scaled } from '../support/time.js';

class Job_ implements Recordable {
  constructor(
    readonly kind: string,
    readonly id: number,
  ) {}
  recordNS(): string {
    return `remote:${this.kind}`;
  }
}

let release: (() => void) | undefined;
const deploy = tool({
  name: 'deploy',
  description: 'Starts a deployment.',
  parameters: z.object({ fail: z.boolean().default(false), hold: z.boolean().default(false) }),
  async execute({ fail, hold }, context) {
    await context.record(new Job_('deployment', 7));
    await context.record(new Job_('lock', 8));
    if (hold) await new Promise<void>((resolve) => (release = resolve));
    if (fail) throw new Error('rollout failed');
    return 'deployed';
  },
});

/** A server of `tools` linked in memory to a client connected by `connectMcp`. */
async function serve(tools: Tool[], options: McpServerOptions = {}): Promise<McpRemote> {
  const server = createMcpServer({ name: 'ops', version: '1.0.0' }, tools, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return connectMcp(clientSide);
}

/** A recorder that keeps what it writes, with the call it was written for. */
function keeper(): {
  written: [ToolRecord, ToolCall][];
  recorder: (r: ToolRecord, c: ToolCall) => void;
} {
  const written: [ToolRecord, ToolCall][] = [];
  return { written, recorder: (record, call) => void written.push([record, call]) };
}

/** The records as the server sent them. */
const SENT = [
  { ns: 'remote:deployment', data: '{"kind":"deployment","id":7}' },
  { ns: 'remote:lock', data: '{"kind":"lock","id":8}' },
];
/** The records as the client's recorder gets them: marked as sent by `server`. */
const from = (server: string): ToolRecord[] => SENT.map((r) => ({ ...r, remote: server }));
const RECORDS = from('ops');

describe('MCP: records travel from the served call to the calling job', function () {
  this.timeout(scaled(5_000));
  const opened: McpRemote[] = [];
  afterEach(async () => {
    release = undefined;
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  it("reach the client executor's recorder on the calling job, in order, before its final", async () => {
    const remote = await serve([deploy]);
    opened.push(remote);
    const { written, recorder } = keeper();
    const job: Job = { tool: remote.tools[0]!, call: { id: 'job-1', args: '{}' } };
    let atFinal = -1;
    const events = await lastValueFrom(
      executeBatch([job], {
        recorder: async (record, call) => {
          await new Promise((resolve) => setTimeout(resolve, 5)); // a durable write takes time
          recorder(record, call);
        },
      }).pipe(toArray()),
    );
    atFinal = written.length;
    expect(events.at(-1)).to.deep.include({ final: true, callId: 'job-1' });
    expect(events.at(-1)?.result?.output).to.equal('deployed');
    expect(atFinal).to.equal(2);
    expect(written).to.deep.equal(
      RECORDS.map((r) => [r, { id: 'job-1', args: '{}', idempotencyKey: 'job-1' }]),
    );
  });

  it('are sent under a namespaced _meta key to a client that asks for them, and to no other', async () => {
    const server = createMcpServer({ name: 'ops', version: '1.0.0' }, [deploy]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(clientSide);
    // A client that does not know them (it would show them, as some adapters show _meta) asks
    // nothing and gets none.
    const plain = await client.callTool({ name: 'deploy', arguments: {} });
    const asked = await client.callTool({
      name: 'deploy',
      arguments: {},
      _meta: { [RECORDS_META_KEY]: true },
    });
    await client.close();
    expect(RECORDS_META_KEY).to.equal('io.agenttool/records');
    expect(plain._meta).to.equal(undefined);
    expect(plain.content).to.deep.equal(asked.content);
    expect(asked._meta).to.deep.equal({ 'io.agenttool/records': SENT });
  });

  it('a proxy passes an upstream result on without its records to a client that did not ask', async () => {
    const upstream = await serve([deploy]);
    opened.push(upstream);
    const proxy = createMcpServer({ name: 'proxy', version: '1.0.0' }, upstream.tools);
    const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(proxySide);
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(clientSide);
    const plain = await client.callTool({ name: 'deploy', arguments: {} });
    await client.close();
    expect(plain._meta).to.equal(undefined);
  });

  it('are recorded for a call that failed: the side effect happened', async () => {
    const remote = await serve([deploy]);
    opened.push(remote);
    const { written, recorder } = keeper();
    const job: Job = { tool: remote.tools[0]!, call: { id: 'job-2', args: '{"fail":true}' } };
    const [settled] = await batchResults([job], { recorder });
    expect(settled).to.have.nested.property('error.message', 'rollout failed');
    expect(written.map(([r]) => r)).to.deep.equal(RECORDS);
  });

  it('cross a proxy chain once each: client → agenttool proxy → server', async () => {
    const upstream = await serve([deploy]);
    opened.push(upstream);
    const proxy = createMcpServer({ name: 'proxy', version: '1.0.0' }, upstream.tools);
    const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(proxySide);
    const remote = await connectMcp(clientSide);
    opened.push(remote);
    const { written, recorder } = keeper();
    const jobs: Job[] = [
      { tool: remote.tools[0]!, call: { id: 'p1', args: '{}' } },
      { tool: remote.tools[0]!, call: { id: 'p2', args: '{"fail":true}' } },
    ];
    const settled = await batchResults(jobs, { recorder });
    expect(settled[0]).to.have.nested.property('result.output', 'deployed');
    expect(settled[1]).to.have.property('error');
    expect(written.filter(([, call]) => call.id === 'p1').map(([r]) => r)).to.deep.equal(
      from('proxy'),
    );
    expect(written.filter(([, call]) => call.id === 'p2').map(([r]) => r)).to.deep.equal(
      from('proxy'),
    );
  });

  it("are written first by the server's own recorder, which alone keeps those of a cancelled call", async () => {
    const server = keeper();
    const remote = await serve([deploy], { recorder: server.recorder });
    opened.push(remote);
    const client = keeper();
    const controller = new AbortController();
    const job: Job = { tool: remote.tools[0]!, call: { id: 'held', args: '{"hold":true}' } };
    const running = batchResults([job], { recorder: client.recorder, signal: controller.signal });
    while (server.written.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    const [settled] = await running;
    release?.();
    expect(settled).to.have.nested.property('error.code', 'cancelled');
    expect(server.written.map(([r]) => r)).to.deep.equal(SENT);
    expect(client.written).to.deep.equal([]);
  });

  it('fail the call when the client cannot write them, naming the record', async () => {
    const remote = await serve([deploy]);
    opened.push(remote);
    const job: Job = { tool: remote.tools[0]!, call: { id: 'r', args: '{}' } };
    const [settled] = await batchResults([job], {
      recorder: () => Promise.reject(new Error('disk full')),
    });
    expect(settled).to.have.nested.property(
      'error.message',
      'mcp: call "deploy": record: disk full',
    );
  });

  /** A server named `name` whose one tool, `odd`, answers "ok" with `records` in its `_meta`. */
  async function sending(records: unknown[], name = 'odd') {
    const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'odd', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({
      content: [{ type: 'text', text: 'ok' }],
      _meta: { [RECORDS_META_KEY]: records },
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const errors: string[] = [];
    const remote = await connectMcp(clientSide, { onerror: (e) => errors.push(e.message) });
    opened.push(remote);
    const { written, recorder } = keeper();
    const [settled] = await batchResults(
      [{ tool: remote.tools[0]!, call: { id: 'o', args: '' } }],
      { recorder },
    );
    return { settled, written: written.map(([r]) => r), errors };
  }

  it('skip entries that are not records, drop those that are not JSON, and write the rest', async () => {
    const { settled, written, errors } = await sending([
      { ns: '', data: '1' },
      { ns: 'a:b', data: 'not json' },
      'text',
      { ns: 'a:b', data: 2 },
      { ns: 'a:ok', data: '{"x":1}' },
    ]);
    expect(settled).to.have.nested.property('result.output', 'ok');
    expect(written).to.deep.equal([{ ns: 'a:ok', data: '{"x":1}', remote: 'odd' }]);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(
      /^mcp: call "odd": dropped 1 of the 2 records the server sent: record a:b: Unexpected token/,
    );
  });

  it('are marked as remote: a forged shell:process-group record is told apart from a local one', async () => {
    const forged = { ns: 'shell:process-group', data: '{"pgid":1}' };
    const { written } = await sending([forged], 'shell');
    expect(written).to.deep.equal([{ ...forged, remote: 'shell' }]);
    // The same record made in this process has no `remote`.
    const local = tool({
      name: 'bash',
      description: 'Runs a command',
      async execute(_args, context) {
        const group = { recordNS: () => 'shell:process-group', toJSON: () => ({ pgid: 1 }) };
        await context.record(group);
        return 'ran';
      },
    });
    const mine = keeper();
    await batchResults([{ tool: local, call: { id: 'l', args: '' } }], {
      recorder: mine.recorder,
    });
    expect(mine.written.map(([r]) => r)).to.deep.equal([forged]);
    expect(mine.written[0]![0]).not.to.have.property('remote');
  });

  it('are capped: of 200,000 records from one call, 1,000 are written, the result stands, one report', async () => {
    const flood = Array.from({ length: 200_000 }, (_, i) => ({ ns: 'x:y', data: String(i) }));
    const { settled, written, errors } = await sending(flood);
    expect(settled).to.have.nested.property('result.output', 'ok');
    expect(written).to.have.length(1_000);
    expect(written.at(-1)).to.deep.equal({ ns: 'x:y', data: '999', remote: 'odd' });
    expect(errors).to.deep.equal([
      `mcp: call "odd": dropped 199000 of the 200000 records the server sent: record: past the call's 1000 records (maxRecords), not written`,
    ]);
  });

  it('drop a record of 8 MB and the namespaces the grammar refuses, and write the others', async () => {
    const { settled, written, errors } = await sending([
      { ns: '__proto__', data: '{"polluted":true}' },
      { ns: 'x:big', data: JSON.stringify('x'.repeat(8 << 20)) },
      { ns: '\x1b]0;pwned\x07', data: '1' },
      { ns: 'x:kept', data: '2' },
    ]);
    expect(settled).to.have.nested.property('result.output', 'ok');
    expect(written).to.deep.equal([{ ns: 'x:kept', data: '2', remote: 'odd' }]);
    expect(errors).to.deep.equal([
      'mcp: call "odd": dropped 3 of the 4 records the server sent: record: invalid namespace "__proto__": 1 to 128 of a-z 0-9 . _ : -, starting with a letter or a digit',
    ]);
  });
});
