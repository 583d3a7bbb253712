import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import fc from 'fast-check';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { createMcpServer } from '../../adapters/mcp-server/index.js';
import { SchemaError, tool, ValidationError, type JsonSchema, type Tool } from '../../index.js';
import { compileValidator } from '../../schema.js';
import { executeBatch, type Job } from '../../operators/index.js';
import { runTool } from '../support/run.js';
import { scaled } from '../support/time.js';

/** Every own name of the prototypes a pollution would reach, to compare before and after. */
function prototypeNames(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((p) => Object.getOwnPropertyNames(p).sort().join(','))
    .join('|');
}

/** What the model may see of a call: its result, or one line starting `invalid arguments:`. */
function expectResultOrRefusal(outcome: { output?: unknown; error?: unknown }, raw: string): void {
  if (outcome.error === undefined) {
    expect(outcome.output, raw.slice(0, 80)).to.be.a('string');
    return;
  }
  expect(outcome.error, raw.slice(0, 80)).to.be.instanceOf(ValidationError);
  const message = (outcome.error as Error).message;
  expect(message).to.match(/^invalid arguments: [^\r\n\u2028\u2029]*$/);
  expect(message.length).to.be.below(400);
}

const echo = (args: unknown): string => JSON.stringify(args) ?? '';

/** Tools of every kind of schema: zod typed, zod with transforms, JSON Schema, strict, none. */
const tools: Tool[] = [
  tool({
    name: 'typed',
    description: '',
    parameters: z.object({
      path: z.string().min(1),
      count: z.number().int().min(0).max(100).default(1),
      level: z.enum(['low', 'high']).optional(),
      tags: z.array(z.string()).max(3).optional(),
      when: z.date().optional(),
      nested: z.object({ a: z.object({ b: z.boolean() }) }).optional(),
    }),
    execute: echo,
  }),
  tool({
    name: 'refined',
    description: '',
    parameters: z.object({
      email: z.email().optional(),
      n: z
        .number()
        .refine((n) => n % 2 === 0, 'must be even')
        .transform((n) => n / 2)
        .optional(),
      any: z.unknown().optional(),
    }),
    execute: echo,
  }),
  tool({
    name: 'strict',
    description: '',
    strict: true,
    parameters: z.object({ a: z.string().optional(), b: z.number().nullable() }),
    execute: echo,
  }),
  tool({
    name: 'json_schema',
    description: '',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z0-9-]+$', maxLength: 36 },
        opts: {
          anyOf: [{ type: 'object', additionalProperties: { type: 'number' } }, { type: 'null' }],
        },
        list: { type: 'array', items: { type: 'integer' }, uniqueItems: true },
      },
      required: ['id'],
    },
    execute: echo,
  }),
  tool({ name: 'no_args', description: '', execute: echo }),
];

function deep(depth: number): string {
  return `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

/** Argument text a hostile or broken model might send. */
const corpus: string[] = [
  '',
  ' \n\t ',
  'null',
  '[]',
  '"text"',
  '42',
  'true',
  '{',
  '}',
  '{"path":',
  '{"path":"a",}',
  '{"path":"a"} trailing',
  '{/* comment */"path":"a"}',
  "{'path':'a'}",
  '{"path":"a","path":1}',
  '\ufeff{"path":"a"}',
  '{"path":"\u0000"}',
  '{"path":"\\x41"}',
  '{"path":"\\u12"}',
  '{"path":"\\ud800"}',
  '{"path":"\udc00\ud800"}',
  '{"\\ud800":1}',
  '{"path":NaN}',
  '{"count":Infinity}',
  '{"count":1e309}',
  '{"count":-1e309}',
  '{"count":1e-400}',
  '{"count":-0}',
  '{"count":01}',
  '{"count":9007199254740993}',
  '{"count":1.0000000000000002}',
  '{"count":5e-324}',
  '{"count":"5"}',
  '{"n":1.7976931348623157e308}',
  '{"__proto__":{"polluted":1}}',
  '{"path":"a","__proto__":{"polluted":1}}',
  '{"nested":{"a":{"__proto__":{"polluted":1}}}}',
  '{"\\u005f_proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"path":"a","constructor":{"prototype":{"polluted":1}}}',
  '{"toString":1,"valueOf":"x","hasOwnProperty":null,"path":"a"}',
  '{"path":"a","prototype":{"polluted":1}}',
  '{"tags":{"length":1,"0":"a"},"path":"a"}',
  '{"when":"2020-13-45T99:00:00Z","path":"a"}',
  '{"when":"not a date","path":"a"}',
  '{"email":"a@b"}',
  '{"id":"../../etc/passwd"}',
  '{"id":"x","opts":{"a":"1"}}',
  '{"id":"x","list":[1,1]}',
  deep(255),
  deep(256),
  deep(100_000),
  `{"path":"${'x'.repeat(1_048_576)}"}`,
  `{"${'k'.repeat(500_000)}":1}`,
  `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
  `{"list":[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}],"id":"x"}`,
  `{"path":"${'\\u0041'.repeat(50_000)}"}`,
  `{"a":"${'\\"'.repeat(100_000)}"}`,
];

describe('security: hostile arguments never crash, hang or pollute', function () {
  this.timeout(scaled(20_000));
  const before = prototypeNames();
  afterEach(() => {
    expect(prototypeNames()).to.equal(before);
    expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
  });

  it('answers every corpus entry, for every kind of tool, with a result or one line of refusal', async () => {
    const jobs: Job[] = [];
    for (const t of tools)
      corpus.forEach((args, i) => jobs.push({ tool: t, call: { id: `${t.name}:${i}`, args } }));
    const started = Date.now();
    const finals = (
      await lastValueFrom(executeBatch(jobs, { maxParallel: 64 }).pipe(toArray()))
    ).filter((e) => e.final);
    expect(finals).to.have.length(jobs.length);
    for (const final of finals)
      expectResultOrRefusal(
        { output: final.result?.output, error: final.error },
        jobs[final.index]!.call.args,
      );
    expect(Date.now() - started, 'ms for the whole corpus').to.be.below(10_000);
    const refusalOf = (name: string, args: string) =>
      finals.find((e) => e.callId === `${name}:${corpus.indexOf(args)}`)?.error?.message;
    expect(refusalOf('typed', '{"__proto__":{"polluted":1}}')).to.equal(
      'invalid arguments: property "__proto__" is not allowed',
    );
    expect(refusalOf('typed', deep(100_000))).to.equal(
      'invalid arguments: arguments are nested deeper than 256 levels',
    );
  });

  it('answers random JSON, random objects with prototype keys and edge values the same way', async () => {
    const key = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'path', 'count', 'id'),
    );
    const edge = fc.oneof(
      fc.constantFrom(0, -0, 1e308, -1e308, 5e-324, 2 ** 53, -(2 ** 53) - 2, 0.1 + 0.2),
      fc.double(),
      fc.integer(),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('\ud800', '\udfff', '\ud83d', 'a\u0000b', '\u2028'),
    );
    const value = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', maxDepth: 4 },
        edge,
        fc.constant(null),
        fc.boolean(),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    /** JSON text with the keys as own properties, `__proto__` included, and raw number forms. */
    const text = (v: unknown): string => {
      if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : '1e400';
      if (Array.isArray(v)) return `[${v.map(text).join(',')}]`;
      if (typeof v === 'object' && v !== null)
        return `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}:${text(x)}`)
          .join(',')}}`;
      return JSON.stringify(v) ?? 'null';
    };
    const raw = fc.oneof(
      fc.dictionary(key, value, { maxKeys: 6 }).map(text),
      fc.json({ maxDepth: 6 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(raw, fc.constantFrom(...tools), async (args, t) => {
        const { events, error } = await runTool(t, args);
        expectResultOrRefusal({ output: events.at(-1)?.result.output, error }, args);
        expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
      }),
      { numRuns: 1_500 },
    );
  });

  it('refuses a random schema ajv cannot compile with a SchemaError, and validates with the rest', async () => {
    const leaf = fc.record(
      {
        type: fc.constantFrom<unknown>(
          'string',
          'number',
          'integer',
          'boolean',
          'null',
          'object',
          'array',
          'nonsense',
          ['string', 'null'],
          42,
        ),
        minimum: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant('x')),
        maxLength: fc.oneof(fc.nat(5), fc.constant(-1)),
        pattern: fc.constantFrom('^[a-z]+$', '(', '\\d', '[', 'a{2,1}'),
        enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
        const: fc.jsonValue({ maxDepth: 1 }),
        format: fc.constantFrom('email', 'date-time', 'uuid', 'uri', 'no-such-format'),
        multipleOf: fc.constantFrom(0, 0.5, 2, -1),
        $ref: fc.constantFrom('#', '#/$defs/missing', 'http://example.invalid/schema'),
        required: fc.oneof(
          fc.array(fc.constantFrom('a', 'b', '__proto__'), { maxLength: 2 }),
          fc.constant('a'),
        ),
        additionalProperties: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    const schema = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', maxDepth: 3 },
        leaf,
        fc.record(
          {
            type: fc.constant('object'),
            properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__'), tie('node'), {
              maxKeys: 3,
            }),
            required: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }),
            additionalProperties: fc.oneof(fc.boolean(), tie('node')),
          },
          { requiredKeys: ['type'] },
        ),
        fc.record({ type: fc.constant('array'), items: tie('node') }),
        fc.record({ anyOf: fc.array(tie('node'), { maxLength: 3 }) }),
        fc.record({ oneOf: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
        fc.record({ not: tie('node') }),
      ),
    })).node;
    const root = fc.oneof(
      schema,
      fc.dictionary(fc.constantFrom('a', 'b', 'c'), schema, { maxKeys: 3 }).map((properties) => ({
        type: 'object',
        properties,
      })),
    );
    let compiled = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        root,
        fc.array(fc.json({ maxDepth: 3 }), { minLength: 1, maxLength: 4 }),
        async (parameters, argsList) => {
          let built: Tool;
          try {
            built = tool({
              name: 'random',
              description: '',
              parameters: parameters as JsonSchema,
              execute: echo,
            });
          } catch (err) {
            expect(err, JSON.stringify(parameters)).to.be.instanceOf(SchemaError);
            expect((err as Error).message).to.not.include('\n');
            refused++;
            return;
          }
          compiled++;
          for (const args of argsList) {
            const { events, error } = await runTool(built, args);
            expectResultOrRefusal({ output: events.at(-1)?.result.output, error }, args);
          }
          // The MCP server compiles with the same validator: it accepts or refuses the same way.
          try {
            createMcpServer({ name: 'x', version: '1' }, [built]);
          } catch (err) {
            expect(err).to.be.instanceOf(SchemaError);
          }
        },
      ),
      { numRuns: 400 },
    );
    // About 16% of the random schemas compile (60 to 70 of 400): the bound only proves the
    // property was not vacuous, far enough below that a random run never misses it.
    expect(compiled, 'schemas that compiled').to.be.above(25);
    expect(refused, 'schemas refused').to.be.above(20);
    expect(() =>
      compileValidator({ type: 'object', properties: { a: { pattern: '(' } } }),
    ).to.throw(SchemaError);
  });

  it('answers hostile arguments sent over the MCP wire, and the server keeps serving', async () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ name: 'hostile', version: '1' }, tools).connect(server);
    const replies = new Map<number, JSONRPCMessage>();
    const waiting = new Map<number, () => void>();
    client.onmessage = (message) => {
      if (!('id' in message) || typeof message.id !== 'number') return;
      replies.set(message.id, message);
      waiting.get(message.id)?.();
    };
    await client.start();
    let nextId = 0;
    /** Sends `text` as a line off the wire would arrive: JSON.parse'd, own __proto__ keys and all. */
    const request = async (method: string, params: string): Promise<JSONRPCMessage> => {
      const id = nextId++;
      const answered = new Promise<void>((resolve) => waiting.set(id, resolve));
      await client.send(
        JSON.parse(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`),
      );
      await answered;
      return replies.get(id)!;
    };
    await request(
      'initialize',
      '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}',
    );
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const objects = corpus.filter((raw) => raw.trimStart().startsWith('{') && isObjectText(raw));
    const random = fc
      .sample(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), 300)
      .map((v) => JSON.stringify(v));
    objects.push(deep(20_000));
    for (const args of [...objects, ...random])
      for (const t of tools) {
        const reply = (await request('tools/call', `{"name":"${t.name}","arguments":${args}}`)) as {
          result?: { isError?: boolean; content: { type: string; text: string }[] };
        };
        expect(reply.result, args.slice(0, 80)).to.not.equal(undefined);
        const text = reply.result!.content[0]!.text;
        if (reply.result!.isError === true)
          expect(text, args.slice(0, 80)).to.match(/^Error: invalid arguments: [^\n]*$/);
      }
    const list = (await request('tools/list', '{}')) as { result?: { tools: unknown[] } };
    expect(list.result?.tools).to.have.length(tools.length);
    await client.close();
  });
});

function isObjectText(raw: string): boolean {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
