import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import {
  rawTool,
  SchemaError,
  tool,
  ValidationError,
  type JsonSchema,
  type Tool,
} from '../../index.js';
import { ENGINES } from '../support/validators.js';

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
async function listed(server: Pick<Server, 'connect'>): Promise<string[]> {
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

/**
 * `v` through `$defs` d0..d(levels-1), each an `anyOf` of two references to the next: a value
 * that fails the last level is checked 2^levels times by a checker without a budget.
 */
function fanOut(levels: number): JsonSchema {
  const $defs: Record<string, JsonSchema> = {};
  for (let i = 0; i < levels; i++)
    $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  $defs[`d${levels}`] = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] };
  return { type: 'object', properties: { v: { $ref: '#/$defs/d0' } }, $defs };
}

/** The ValidationError's message `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return (error as Error).message;
  }
  return expect.fail('expected a ValidationError');
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

    it('stops an anyOf fan-out through $ref at its budget: the call fails alone, with one line', () => {
      // 2^26 checks without a budget: minutes, then out of memory.
      const validator = compileValidator(fanOut(26));
      const raw = '{"v":{"x":1}}';
      for (let k = 0; k < 3; k++)
        expect(refusal(() => validator.parse(raw))).to.equal(
          `invalid arguments: cannot be checked: the schema follows more than ${10_000 + Math.ceil(raw.length / 4)} references ($ref) on these arguments`,
        );
      // Values the fan-out does not reach are checked.
      expect(validator.parse('{}')).to.deep.equal({});
      // A small fan-out is within the budget: checked as before.
      const small = compileValidator(fanOut(8));
      expect(refusal(() => small.parse(raw))).to.equal(
        'invalid arguments: v.x: expected string, got 1',
      );
      expect(small.parse('{"v":{"x":"y"}}')).to.deep.equal({ v: { x: 'y' } });
    });

    it('lets a schema follow a reference for each of 50,000 values', () => {
      const list: JsonSchema = {
        type: 'object',
        properties: { items: { type: 'array', items: { $ref: '#/$defs/node' } } },
        $defs: { node: { type: 'object', properties: { n: { type: 'integer' } } } },
      };
      const items = Array.from({ length: 50_000 }, (_, n) => ({ n }));
      expect(compileValidator(list).parse(JSON.stringify({ items }))).to.deep.equal({ items });
      expect(compileValidator(list).check({ items })).to.deep.equal({ items });
    });

    it('refuses a pattern whose RE2 program is too large, with one line', () => {
      const error = schemaError(() =>
        compileValidator(
          {
            type: 'object',
            properties: { s: { type: 'string', pattern: '[a-j]{1000}'.repeat(6) } },
          },
          { tool: 't' },
        ),
      );
      expect(error.message).to.match(
        /^tool "t": schema: pattern \/\[a-j\]\{1000\}.*\/ is too large to match in bounded time \(\d+ RE2 instructions; the limit is 5000\)$/,
      );
    });

    it('bounds the matching a call may spend: (a|b|…|j){1000}$ against 1 MB, three times, fails fast with one line', () => {
      const validator = compileValidator({
        type: 'object',
        properties: { s: { type: 'string', pattern: '(a|b|c|d|e|f|g|h|i|j){1000}$' } },
      });
      const raw = JSON.stringify({ s: 'abcdefghij'.repeat(100_000) + 'k' });
      // Each of these took RE2 up to a minute once its state cache had filled (the third).
      for (let k = 0; k < 3; k++)
        expect(refusal(() => validator.parse(raw))).to.equal(
          `invalid arguments: cannot be checked: matching pattern "(a|b|c|d|e|f|g|h|i|j){1000}$" (3003 RE2 instructions) against a string of 1000001 characters would take this check past its ${1_000_000 + 8 * raw.length} matching steps`,
        );
      // A string the budget covers is matched (300 characters: too short for this pattern).
      expect(
        refusal(() => validator.parse(JSON.stringify({ s: 'abcdefghij'.repeat(30) }))),
      ).to.match(/^invalid arguments: s: expected a string matching pattern /);
    });

    it('matches a small pattern against 1 MB within the budget', () => {
      const validator = compileValidator({
        type: 'object',
        properties: { s: { type: 'string', pattern: '^[a-j]+$' } },
      });
      const s = 'abcdefghij'.repeat(100_000);
      expect(validator.parse(JSON.stringify({ s }))).to.deep.equal({ s });
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
