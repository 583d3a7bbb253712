import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { Observable } from 'rxjs';
import { z } from 'zod';
import {
  connectMcp,
  RemoteToolError,
  type McpClientOptions,
  type McpRemote,
} from '../../adapters/mcp-client/index.js';
import { createMcpServer, type McpServerOptions } from '../../adapters/mcp-server/index.js';
import {
  annotationsOf,
  CallContext,
  definition,
  filePart,
  imagePart,
  parts,
  rawTool,
  SchemaError,
  textPart,
  textResult,
  tool,
  type Tool,
  type ToolEvent,
} from '../../index.js';
import { runTool } from '../support/run.js';
import { only as find } from '../support/sdk-peers.js';
import { hangTool, sessionCounter } from '../support/tools.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const NOTES = Buffer.from('line one\n').toString('base64');
const WAV = Buffer.from('RIFF....WAVE').toString('base64');

let echoRuns = 0;
const echo = tool({
  name: 'echo',
  description: 'Echo the text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => {
    echoRuns++;
    return text;
  },
});
const add = tool({
  name: 'add',
  description: 'Add two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  strict: true,
  annotations: { readOnlyHint: true },
  execute: ({ a, b }) => ({ sum: a + b }),
});
const now = tool({ name: 'now', description: 'No arguments.', execute: () => 'tick' });
const raw = rawTool({
  name: 'raw',
  description: 'A JSON Schema from elsewhere.',
  parameters: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0 } },
    required: ['n'],
  },
  annotations: {
    title: 'Raw',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  execute: (call) => textResult(`got ${call.args}`),
});
const media = tool({
  name: 'media',
  description: 'Parts of every kind.',
  execute: () =>
    parts(
      textPart('see'),
      imagePart({ data: PNG, mimeType: 'image/png' }),
      filePart({ filename: 'notes.txt', data: NOTES, mimeType: 'text/plain' }),
      filePart({ data: WAV, mimeType: 'audio/wav' }),
      filePart({ url: 'https://example.com/report.pdf', filename: 'report.pdf' }),
    ),
});
const broken = tool({
  name: 'broken',
  description: 'Always fails.',
  execute: (): string => {
    throw new Error('disk full');
  },
});
const counting = tool({
  name: 'counting',
  description: 'Reports progress, the last just before its result.',
  async *execute() {
    yield { progress: 1, total: 3, message: 'one' };
    yield 'two';
    yield { progress: 3, total: 3 };
    return 'done';
  },
});
const local: Tool[] = [echo, add, now, raw, media, broken, counting];

async function serve(
  tools: readonly Tool[],
  options: McpClientOptions = {},
  serverOptions: McpServerOptions = {},
): Promise<McpRemote> {
  const server = createMcpServer({ name: 'local', version: '1.0.0' }, tools, serverOptions);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return connectMcp(clientSide, options);
}

const progressOf = (events: ToolEvent[]): unknown[] =>
  events.filter((e) => !e.final).map((e) => e.result.details);

describe('MCP round trips: served by createMcpServer, consumed by connectMcp (in memory)', () => {
  const opened: McpRemote[] = [];
  const open = async (...args: Parameters<typeof serve>): Promise<McpRemote> => {
    const remote = await serve(...args);
    opened.push(remote);
    return remote;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  it('serves the definitions the model would see locally (name, description, schema)', async () => {
    const remote = await open(local);
    const shape = (t: Tool) => {
      const { name, description, parameters } = definition(t);
      return { name, description, parameters };
    };
    expect(remote.tools.map(shape)).to.deep.equal(local.map(shape));
  });

  it('maps results back: text, JSON, and parts of every kind', async () => {
    const remote = await open(local);
    expect(
      (await runTool(find(remote, 'echo'), { text: 'hi' })).events.at(-1)?.result.output,
    ).to.equal('hi');
    expect(
      (await runTool(find(remote, 'add'), { a: 2, b: 3 })).events.at(-1)?.result.output,
    ).to.equal('{"sum":5}');
    expect((await runTool(find(remote, 'raw'), { n: 1 })).events.at(-1)?.result.output).to.equal(
      'got {"n":1}',
    );
    expect((await runTool(find(remote, 'media'))).events.at(-1)?.result.output).to.deep.equal([
      { type: 'input_text', text: 'see' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
      { type: 'input_file', file_data: `data:text/plain;base64,${NOTES}`, filename: 'notes.txt' },
      { type: 'input_file', file_data: `data:audio/wav;base64,${WAV}` },
      { type: 'input_text', text: 'resource: https://example.com/report.pdf' },
    ]);
  });

  it('a failing tool is an isError result the client raises as its message', async () => {
    const remote = await open(local);
    const { error } = await runTool(find(remote, 'broken'));
    expect(error).to.be.instanceOf(RemoteToolError);
    expect((error as RemoteToolError).message).to.equal('disk full');
    expect((error as RemoteToolError).details).to.deep.equal({
      content: [{ type: 'text', text: 'Error: disk full' }],
      isError: true,
    });
  });

  it('validates arguments before running: a problem is a tool error, and the tool never runs', async () => {
    const remote = await open(local);
    const before = echoRuns;
    const missing = await runTool(find(remote, 'echo'), {});
    expect((missing.error as Error).message).to.equal(
      'invalid arguments: missing required property "text"',
    );
    expect(echoRuns).to.equal(before);
    const extra = await runTool(find(remote, 'add'), { a: 1, b: 2, c: 3 });
    expect((extra.error as Error).message).to.equal('invalid arguments: unexpected property "c"');
    const negative = await runTool(find(remote, 'raw'), { n: -1 });
    expect((negative.error as Error).message).to.match(/^invalid arguments: n: /);
  });

  it('forwards progress in order, the one just before the result included', async () => {
    const remote = await open(local);
    const { events } = await runTool(find(remote, 'counting'));
    expect(progressOf(events)).to.deep.equal([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, message: 'two' },
      { progress: 3, total: 3 },
    ]);
    expect(events.map((e) => e.result.output)).to.deep.equal(['one', 'two', '', 'done']);
  });

  it('forwards no progress a tool sends after its final, nor a second final', async () => {
    const afterFinal = rawTool({
      name: 'after-final',
      description: 'Breaks the contract after its final.',
      execute: () =>
        new Observable<ToolEvent>((subscriber) => {
          subscriber.next({ final: false, result: textResult('before') });
          subscriber.next({ final: true, result: textResult('result') });
          subscriber.next({ final: false, result: textResult('after') });
          subscriber.next({ final: true, result: textResult('second') });
          subscriber.complete();
        }),
    });
    const remote = await open([afterFinal]);
    const { events } = await runTool(find(remote, 'after-final'));
    expect(events.map((e) => [e.final, e.result.output])).to.deep.equal([
      [false, 'before'],
      [true, 'result'],
    ]);
  });

  it('serves exactly the annotation hints a tool states; the client fills in the MCP defaults that apply', async () => {
    const remote = await open(local);
    expect(annotationsOf(find(remote, 'raw'))).to.deep.equal(annotationsOf(raw));
    expect(annotationsOf(find(remote, 'add'))).to.deep.equal({
      readOnlyHint: true,
      openWorldHint: true,
    });
    expect(annotationsOf(find(remote, 'echo'))).to.deep.equal({});

    const server = createMcpServer({ name: 'local', version: '1.0.0' }, local);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(clientSide);
    const listed = (await client.listTools()).tools;
    expect(listed.find((t) => t.name === 'add')?.annotations).to.deep.equal({ readOnlyHint: true });
    expect(listed.find((t) => t.name === 'echo')).to.not.have.property('annotations');
    await client.close();
  });

  it('an unknown tool name is a protocol error, not a tool result', async () => {
    const server = createMcpServer({ name: 'local', version: '1.0.0' }, local);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(clientSide);
    let failure: unknown;
    await client.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => (failure = e));
    expect((failure as { code: number }).code).to.equal(-32602);
    expect((failure as Error).message).to.include('unknown tool "nope"');
    await client.close();
  });

  it('leaves out, with one report each, a tool whose schema does not compile or is not an object, and refuses duplicate names', async () => {
    const bad = rawTool({
      name: 'bad',
      description: '',
      parameters: { type: 'object', properties: { a: { type: 'nope' } } },
      execute: () => textResult(''),
    });
    const scalar = rawTool({
      name: 'scalar',
      description: '',
      parameters: { type: 'string' },
      execute: () => textResult(''),
    });
    const reported: Error[] = [];
    const server = createMcpServer({ name: 's', version: '1' }, [bad, echo, scalar], {
      onError: (error) => reported.push(error),
    });
    expect(reported.map((e) => e.constructor)).to.deep.equal([SchemaError, SchemaError]);
    expect(reported[0]!.message).to.match(/^tool "bad": schema: /);
    expect(reported[1]!.message).to.match(/^tool "scalar": schema: .*object/);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'plain', version: '1.0.0' });
    await client.connect(clientSide);
    expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal(['echo']);
    await client.close();
    expect(() => createMcpServer({ name: 's', version: '1' }, [echo, echo])).to.throw(
      /duplicate tool name "echo"/,
    );
  });

  it('gives each client connection its own session, with the client name it sent', async () => {
    const whoami = sessionCounter('whoami', (session, count) => ({ ...session, count }));
    const alpha = await open([whoami], { clientInfo: { name: 'alpha', version: '1.0.0' } });
    const beta = await open([whoami], { clientInfo: { name: 'beta', version: '2.0.0' } });
    const ask = async (remote: McpRemote) =>
      JSON.parse(
        (await runTool(find(remote, 'whoami'))).events.at(-1)!.result.output as string,
      ) as {
        id: string;
        client: unknown;
        count: number;
      };
    const a1 = await ask(alpha);
    const a2 = await ask(alpha);
    const b1 = await ask(beta);
    expect(a1.client).to.deep.equal({ name: 'alpha', version: '1.0.0' });
    expect(b1.client).to.deep.equal({ name: 'beta', version: '2.0.0' });
    expect(a2.id).to.equal(a1.id);
    expect(b1.id).to.not.equal(a1.id);
    expect([a1.count, a2.count, b1.count]).to.deep.equal([1, 2, 1]);
  });

  it('cancels the served call when the client unsubscribes, and when the client goes away', async () => {
    const hanging = hangTool();
    const cancelled = async (remote: McpRemote, stop: (unsubscribe: () => void) => void) => {
      const { started: running, aborted: stopped } = hanging.watch();
      const call = { id: 'h', args: '' };
      const subscription = find(remote, 'hang')
        .execute(call, new CallContext(call))
        .subscribe({ error: () => undefined });
      await running;
      stop(() => subscription.unsubscribe());
      return stopped;
    };
    const first = await open([hanging.tool]);
    expect(await cancelled(first, (unsubscribe) => unsubscribe())).to.be.instanceOf(Error);
    const second = await open([hanging.tool]);
    expect(await cancelled(second, () => void second.close())).to.be.instanceOf(Error);
  });

  it('a proxy chain (consume, serve again, consume) keeps results, errors, validation and progress numbers', async () => {
    const first = await open(local);
    const proxied = await open(first.tools, { prefix: 'far' });
    const { events } = await runTool(find(proxied, 'far__counting'));
    expect(progressOf(events)).to.deep.equal([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, message: 'two' },
      { progress: 3, total: 3 },
    ]);
    expect(events.at(-1)?.result.output).to.equal('done');
    expect(((await runTool(find(proxied, 'far__broken'))).error as Error).message).to.equal(
      'disk full',
    );
    expect(((await runTool(find(proxied, 'far__echo'), {})).error as Error).message).to.equal(
      'invalid arguments: missing required property "text"',
    );
    expect((await runTool(find(proxied, 'far__media'))).events.at(-1)?.result.output).to.deep.equal(
      (await runTool(find(first, 'media'))).events.at(-1)?.result.output,
    );
  });
});
