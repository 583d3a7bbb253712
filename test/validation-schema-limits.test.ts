import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { connectMcp } from '../adapters/mcp-client/index.js';
import { createMcpServer } from '../adapters/mcp-server/index.js';
import { rawTool, SchemaError, tool, type JsonSchema, type Tool } from '../index.js';
import { ENGINES } from './support/validators.js';

/** An object schema whose property `a` nests `depth` object schemas, built without recursion. */
function deepSchema(depth: number): JsonSchema {
  let schema: JsonSchema = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/** The SchemaError `run` throws. */
function schemaError(run: () => unknown): SchemaError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(SchemaError);
    return error as SchemaError;
  }
  return expect.fail('expected a SchemaError');
}

/** The names a client lists from `server`. */
async function listed(server: Server): Promise<string[]> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

const plain = rawTool({
  name: 'plain',
  description: '',
  parameters: { type: 'object' },
  execute: () => ({ output: 'ok' }),
});

for (const { engine, compileValidator } of ENGINES) {
  describe(`schemas from elsewhere: depth (${engine})`, () => {
    for (const depth of [3_000, 100_000])
      it(`refuses a schema ${depth} levels deep with one line, before walking it`, () => {
        const error = schemaError(() => compileValidator(deepSchema(depth), { tool: 't' }));
        expect(error.message).to.equal(
          'tool "t": schema: the schema is nested deeper than 512 levels',
        );
      });

    it('compiles and checks a schema 255 levels deep (511 levels of objects)', () => {
      const validator = compileValidator(deepSchema(255));
      let value = '"x"';
      for (let i = 0; i < 255; i++) value = `{"a":${value}}`;
      expect(() => validator.parse(value)).not.to.throw();
    });
  });
}

describe('schemas from elsewhere: depth, in tools and servers', () => {
  it('tool() refuses a JSON Schema 3,000 deep at registration', () => {
    const error = schemaError(() =>
      tool({
        name: 'deep',
        description: '',
        parameters: deepSchema(3_000),
        execute: () => ({ output: 'x' }),
      }),
    );
    expect(error.message).to.match(/nested deeper than 512 levels/);
  });

  it('createMcpServer leaves out a local or a remote tool 3,000 deep, reports each once, and lists the rest', async () => {
    const local = rawTool({
      name: 'local_deep',
      description: '',
      parameters: deepSchema(3_000),
      execute: () => ({ output: 'x' }),
    });
    const definition: McpTool = {
      name: 'remote_deep',
      inputSchema: deepSchema(3_000) as McpTool['inputSchema'],
    };
    const remote: Tool = {
      name: 'remote_deep',
      description: '',
      parameters: definition.inputSchema as JsonSchema,
      remote: definition,
      execute: () => {
        throw new Error('not called');
      },
    };
    const reported: Error[] = [];
    const server = createMcpServer({ name: 's', version: '1' }, [local, remote, plain], {
      onError: (error) => reported.push(error),
    });
    expect(await listed(server)).to.deep.equal(['plain']);
    expect(reported.map((e) => e.message)).to.deep.equal([
      'tool "local_deep": schema: the schema is nested deeper than 512 levels',
      'tool "remote_deep": schema: its definition is nested deeper than 512 levels',
    ]);
  });

  it('connectMcp leaves out a listed tool 100,000 deep, says so once, and keeps the rest', async () => {
    const server = new Server({ name: 'deep', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: 'deep', inputSchema: deepSchema(100_000) },
        { name: 'plain', inputSchema: { type: 'object' } },
      ],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const errors: string[] = [];
    const remote = await connectMcp(clientSide, { onerror: (e) => errors.push(e.message) });
    try {
      expect(remote.tools.map((t) => t.name)).to.deep.equal(['plain']);
      expect(errors).to.deep.equal([
        'mcp: tools/list: left out tool "deep": its definition is nested deeper than 512 levels',
      ]);
    } finally {
      await remote.close();
    }
  });
});
