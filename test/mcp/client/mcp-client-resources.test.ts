import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { z } from 'zod';
import {
  connectMcp,
  type McpClientOptions,
  type McpRemote,
} from '../../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../../adapters/mcp-server/index.js';
import { resourceOf, tool, ValidationError, type Tool } from '../../../index.js';
import { batchResults } from '../../../operators/batch-results.js';
import { chains } from '../../../operators/chains.js';
import { scaled } from '../../support/time.js';

const served: string[] = [];
const write = tool({
  name: 'write_file',
  description: 'Writes a file.',
  parameters: z.object({ path: z.string(), text: z.string() }),
  execute: ({ path }) => {
    served.push(path);
    return `wrote ${path}`;
  },
});
const bash = tool({ name: 'bash', description: 'Runs a command.', execute: () => 'ok' });

async function connect(options: McpClientOptions): Promise<McpRemote> {
  const server = createMcpServer({ name: 'files', version: '1.0.0' }, [write, bash]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return connectMcp(clientSide, options);
}

function named(remote: McpRemote, name: string): Tool {
  const found = remote.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('MCP client: resources named from the arguments', function () {
  this.timeout(scaled(5_000));
  const opened: McpRemote[] = [];
  afterEach(async () => {
    served.length = 0;
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  it('names each call of a remote tool by its arguments, by remote or local name', async () => {
    const remote = await connect({
      prefix: 'fs',
      resources: { write_file: (args) => `file:${String(args.path)}`, shell: ['fs__bash'] },
    });
    opened.push(remote);
    const w = named(remote, 'fs__write_file');
    expect(resourceOf(w, '{"path":"a.txt","text":""}')).to.equal('file:a.txt');
    expect(resourceOf(named(remote, 'fs__bash'))).to.equal('shell');
    const job = (id: string, path: string) => ({
      tool: w,
      call: { id, args: JSON.stringify({ path, text: id }) },
    });
    expect(chains([job('1', 'a'), job('2', 'b'), job('3', 'a')])).to.deep.equal([[0, 2], [1]]);
  });

  it('takes a function over a list that names the same tool', async () => {
    const remote = await connect({
      resources: {
        fs: ['write_file'],
        fs__write_file: ['x'],
        write_file: (args) => `file:${String(args.path)}`,
      },
    });
    opened.push(remote);
    expect(resourceOf(named(remote, 'write_file'), '{"path":"n"}')).to.equal('file:n');
  });

  it('fails a call whose arguments are not JSON locally, before anything reaches the server', async () => {
    const remote = await connect({
      resources: { write_file: (args) => `file:${String(args.path)}` },
    });
    opened.push(remote);
    const w = named(remote, 'write_file');
    const settled = await batchResults([
      { tool: w, call: { id: 'a', args: '{"path":"a.txt","text":"1"}' } },
      { tool: w, call: { id: 'b', args: '{"path":' } },
      { tool: w, call: { id: 'c', args: '{"path":"a.txt","text":"2"}' } },
    ]);
    expect(settled[0]).to.have.nested.property('result.output', 'wrote a.txt');
    expect(settled[2]).to.have.nested.property('result.output', 'wrote a.txt');
    expect(settled[1]).to.have.property('error').that.is.instanceOf(ValidationError);
    expect(served).to.deep.equal(['a.txt', 'a.txt']);
  });
});
