import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { z } from 'zod';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import {
  batchResults,
  capacityOf,
  chains,
  rawTool,
  resourceOf,
  tool,
  wrap,
  type Job,
  type Tool,
} from '../../index.js';
import { initialCallStates } from '../../operators/index.js';

const run = tool({
  name: 'run',
  description: 'Runs code in a sandbox',
  parameters: z.object({ code: z.string() }),
  resource: { key: 'sandbox', capacity: 2 },
  execute: ({ code }) => `ran ${code}`,
});

const fetchPage = tool({
  name: 'fetch',
  description: 'Fetches a page',
  parameters: z.object({ host: z.string().trim() }),
  resource: ({ host }) => ({ key: `host:${host}`, capacity: host === 'api.example' ? 3 : 1 }),
  execute: ({ host }) => `fetched ${host}`,
});

/** A raw tool's function answering "ok". */
const ok = () => ({ output: 'ok' });

function job(t: Tool, id: string, args: object): Job {
  return { tool: t, call: { id, args: JSON.stringify(args) } };
}

describe('counted resources: the readers', () => {
  it('reads the key with resourceOf and the capacity with capacityOf', () => {
    expect(resourceOf(run)).to.equal('sandbox');
    expect(capacityOf(run)).to.equal(2);
    expect(resourceOf(fetchPage, '{"host":" api.example"}')).to.equal('host:api.example');
    expect(capacityOf(fetchPage, '{"host":" api.example"}')).to.equal(3);
    expect(capacityOf(fetchPage, '{"host":"other"}')).to.equal(1);
  });

  it('reads capacity 1 for a plain resource, none, or a sequential tool', () => {
    const plain = rawTool({ name: 'p', description: '', resource: 'fs', execute: ok });
    const none = rawTool({ name: 'n', description: '', execute: ok });
    const alone = rawTool({
      name: 's',
      description: '',
      sequential: true,
      resource: { key: 'sandbox', capacity: 4 },
      execute: ok,
    });
    expect([capacityOf(plain), capacityOf(none), capacityOf(alone)]).to.deep.equal([1, 1, 1]);
    expect(resourceOf(alone)).to.equal('');
  });

  it('reads a null resource, from JavaScript, as none', () => {
    const untyped = { name: 'u', description: '', resource: null, execute: ok } as unknown as Tool;
    expect([resourceOf(untyped), capacityOf(untyped)]).to.deep.equal(['', 1]);
    expect(chains([job(untyped, 'a', {}), job(untyped, 'b', {})])).to.deep.equal([[0], [1]]);
  });

  it('takes Infinity as a capacity: no bound of its own', () => {
    const cache = rawTool({
      name: 'cache',
      description: '',
      resource: { key: 'cache', capacity: Infinity },
      execute: ok,
    });
    expect(capacityOf(cache)).to.equal(Infinity);
  });

  it('is forwarded by wrap()', () => {
    expect(wrap(run, {}).resource).to.deep.equal({ key: 'sandbox', capacity: 2 });
    expect(capacityOf(wrap(run, {}))).to.equal(2);
  });
});

describe('counted resources: capacities that cannot be', () => {
  const cases: [string, unknown, string][] = [
    ['zero', 0, 'got 0'],
    ['negative', -2, 'got -2'],
    ['a fraction', 1.5, 'got 1.5'],
    ['NaN', NaN, 'got an out-of-range number'],
    ['-Infinity', -Infinity, 'got an out-of-range number'],
    ['a string', '4', 'got "4"'],
    ['missing', undefined, 'got nothing'],
  ];
  for (const [what, capacity, got] of cases) {
    it(`refuses ${what} at definition, in tool() and rawTool()`, () => {
      const resource = { key: 'sandbox', capacity } as { key: string; capacity: number };
      const message = `tool "bad": resource "sandbox": capacity must be an integer >= 1 or Infinity, ${got}`;
      expect(() => tool({ name: 'bad', description: '', resource, execute: () => 'ok' }))
        .to.throw(RangeError)
        .with.property('message', message);
      expect(() => rawTool({ name: 'bad', description: '', resource, execute: ok }))
        .to.throw(RangeError)
        .with.property('message', message);
    });
  }

  it('refuses a resource that is neither a string nor { key, capacity }', () => {
    const resource = { name: 'sandbox' } as unknown as string;
    expect(() => rawTool({ name: 'bad', description: '', resource, execute: ok })).to.throw(
      TypeError,
      'tool "bad": resource is object, not a string or { key, capacity }',
    );
  });

  it("rejects the batch's promise for an application capacity that cannot be", async () => {
    const failed: unknown = await batchResults([job(run, 'a', { code: '1' })], {
      capacities: { sandbox: 0 },
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed)
      .to.be.instanceOf(RangeError)
      .with.property(
        'message',
        'capacities["sandbox"]: capacity must be an integer >= 1 or Infinity, got 0',
      );
    expect(() => chains([], { sequential: true, capacities: { api: -1 } })).to.throw(
      RangeError,
      'capacities["api"]: capacity must be an integer >= 1 or Infinity, got -1',
    );
    expect(() => chains([job(run, 'a', { code: '1' })], { capacities: { api: -1 } })).to.throw(
      RangeError,
      'capacities["api"]: capacity must be an integer >= 1 or Infinity, got -1',
    );
  });
});

describe('counted resources: chains and views', () => {
  const jobs = [
    job(run, 'a', { code: '1' }),
    job(fetchPage, 'b', { host: 'api.example' }),
    job(run, 'c', { code: '2' }),
    job(run, 'd', { code: '3' }),
    job(fetchPage, 'e', { host: 'api.example' }),
    job(run, 'f', { code: '4' }),
  ];

  it('lists a counted resource as one chain, its calls in the order they start', () => {
    expect(chains(jobs)).to.deep.equal([
      [0, 2, 3, 5],
      [1, 4],
    ]);
  });

  it('says which call each waits for: the one `capacity` places before it', () => {
    const after = initialCallStates(jobs).map((c) => `${c.resource} ${c.after}`);
    expect(after).to.deep.equal([
      'sandbox -1',
      'host:api.example -1',
      'sandbox -1',
      'sandbox 0',
      'host:api.example -1',
      'sandbox 2',
    ]);
  });

  it("counts with the application's capacities, and one chain in a serial batch", () => {
    const byApp = initialCallStates(jobs, { capacities: { sandbox: 1, 'host:api.example': 1 } });
    expect(byApp.map((c) => c.after)).to.deep.equal([-1, -1, 0, 2, 1, 3]);
    const serial = initialCallStates(jobs, { sequential: true });
    expect(serial.map((c) => c.after)).to.deep.equal([-1, 0, 1, 2, 3, 4]);
  });

  it('runs every call of a batch with counted resources to its result', async () => {
    const settled = await batchResults(jobs, { capacities: { sandbox: 3 } });
    expect(settled.map((s) => s.result?.output)).to.deep.equal([
      'ran 1',
      'fetched api.example',
      'ran 2',
      'ran 3',
      'fetched api.example',
      'ran 4',
    ]);
  });
});

describe('counted resources: MCP', () => {
  it('serves a tool with a counted resource, and a client counts a remote one by function', async () => {
    const server = createMcpServer({ name: 'sandbox', version: '1.0.0' }, [run]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const remote = await connectMcp(clientSide, {
      resources: { run: () => ({ key: 'sandbox', capacity: 4 }) },
    });
    try {
      const remoteRun = remote.tools.find((t) => t.name === 'run')!;
      expect(capacityOf(remoteRun)).to.equal(4);
      const settled = await batchResults([job(remoteRun, 'a', { code: '1' })]);
      expect(settled[0]?.result?.output).to.equal('ran 1');
    } finally {
      await remote.close();
    }
  });
});
