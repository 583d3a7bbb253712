import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { firstValueFrom, lastValueFrom, skip, toArray } from 'rxjs';
import { connectMcp, RemoteToolError, type McpRemote } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import { annotationsOf, CallContext, type Tool, type ToolEvent } from '../../index.js';
import { scaled } from '../support/time.js';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

function find(remote: McpRemote, name: string): Tool {
  const tool = remote.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

async function run(tool: Tool, args: object): Promise<{ events: ToolEvent[]; error?: unknown }> {
  const call = { id: 'c1', args: JSON.stringify(args) };
  const events: ToolEvent[] = [];
  try {
    await lastValueFrom(tool.execute(call, new CallContext(call)).pipe(toArray())).then((all) =>
      events.push(...all),
    );
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('MCP client against the reference server (server-everything over stdio)', function () {
  this.timeout(scaled(20_000));
  let remote: McpRemote;
  let refreshed: Promise<readonly Tool[]>;

  before(async () => {
    remote = await connectMcp(
      new StdioClientTransport({
        command: process.execPath,
        args: [everything, 'stdio'],
        stderr: 'pipe',
      }),
      { prefix: 'every' },
    );
    // The server sends tools/list_changed right after initialize; the next list is its refresh.
    refreshed = firstValueFrom(remote.tools$.pipe(skip(1)));
  });

  after(() => remote?.close());

  it('lists the tools under the prefix, with server info and instructions', () => {
    expect(remote.name('echo')).to.equal('every__echo');
    expect(remote.tools.map((t) => t.name)).to.include.members(['every__echo', 'every__get-sum']);
    expect(remote.serverInfo.name).to.equal('mcp-servers/everything');
    expect(remote.instructions).to.be.a('string').and.not.equal('');
    expect(find(remote, 'every__echo').parameters).to.deep.include({
      type: 'object',
      required: ['message'],
    });
  });

  it('handles the list_changed sent after initialize: tools$ emits the refreshed list', async () => {
    const list = await refreshed;
    expect(list.map((t) => t.name)).to.include('every__echo');
    expect(await remote.await()).to.equal(remote.tools);
  });

  it('maps the server annotations', () => {
    expect(annotationsOf(find(remote, 'every__echo'))).to.deep.equal({
      title: 'Echo Tool',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('echoes text as a string output', async () => {
    const { events, error } = await run(find(remote, 'every__echo'), { message: 'hello' });
    expect(error).to.equal(undefined);
    expect(events).to.have.length(1);
    expect(events[0]!.final).to.equal(true);
    expect(events[0]!.result.output).to.equal('Echo: hello');
  });

  it('returns the tiny image as an input_image data URL', async () => {
    const { events } = await run(find(remote, 'every__get-tiny-image'), {});
    const output = events.at(-1)!.result.output;
    expect(output).to.be.an('array');
    const image = (output as { type: string; image_url?: string }[]).find(
      (p) => p.type === 'input_image',
    );
    expect(image?.image_url).to.match(/^data:image\/png;base64,iVBOR/);
  });

  it('gives structured results to the model once, as the text the server sent', async () => {
    const { events } = await run(find(remote, 'every__get-structured-content'), {
      location: 'Chicago',
    });
    const output = events.at(-1)!.result.output as string;
    const details = events.at(-1)!.result.details as { structuredContent: unknown };
    expect(output).to.not.include('\n');
    expect(JSON.parse(output)).to.deep.equal(details.structuredContent);
    expect(details.structuredContent).to.have.keys(['temperature', 'conditions', 'humidity']);
  });

  it('reports invalid arguments as a tool error the model can read', async () => {
    const { events, error } = await run(find(remote, 'every__get-sum'), { a: 'one', b: 2 });
    expect(events).to.deep.equal([]);
    expect(error).to.be.instanceOf(RemoteToolError);
    expect((error as RemoteToolError).message).to.match(/invalid|validation/i);
    expect((error as RemoteToolError).details.isError).to.equal(true);
  });

  it('delivers every progress notification in order before the result, the last one included', async () => {
    const { events, error } = await run(find(remote, 'every__trigger-long-running-operation'), {
      duration: 0.2,
      steps: 4,
    });
    expect(error).to.equal(undefined);
    expect(events.filter((e) => !e.final).map((e) => e.result.details)).to.deep.equal([
      { progress: 1, total: 4 },
      { progress: 2, total: 4 },
      { progress: 3, total: 4 },
      { progress: 4, total: 4 },
    ]);
    expect(events.at(-1)!.final).to.equal(true);
    expect(events.at(-1)!.result.output).to.match(/Long running operation completed/);
  });

  it('re-serves its tools through createMcpServer: invalid arguments get the server its own answer', async () => {
    const server = createMcpServer({ name: 'proxy', version: '1.0.0' }, remote.tools);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const proxy = await connectMcp(clientSide);
    try {
      const sum = await run(find(proxy, 'every__get-sum'), { a: 1, b: 2 });
      expect(sum.events.at(-1)!.result.output).to.equal('The sum of 1 and 2 is 3.');
      const invalid = await run(find(proxy, 'every__get-sum'), { a: 'x', b: 2 });
      const direct = await run(find(remote, 'every__get-sum'), { a: 'x', b: 2 });
      expect((direct.error as Error).message).to.match(/expected number/);
      expect((invalid.error as Error).message).to.equal((direct.error as Error).message);
    } finally {
      await proxy.close();
    }
  });

  it('fails every later call promptly with "mcp: connection closed" after close()', async () => {
    const echo = find(remote, 'every__echo');
    const completed = lastValueFrom(remote.tools$.pipe(toArray()));
    await remote.close();
    await completed;
    const { error } = await run(echo, { message: 'late' });
    expect((error as Error).message).to.equal('mcp: connection closed');
  });
});
