import { expect } from 'chai';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { z as standalone3 } from 'zod3';
import { batchResults } from '../../operators/batch-results.js';
import { tool } from '../../lib/tool.js';
import {
  compileZodSchema,
  schemaOf,
  type AnyZodSchema,
  type SchemaOptions,
} from '../../lib/schema/schema.js';
import { SchemaError } from '../../lib/errors.js';
import { registerZod3 } from '../../lib/schema/zod3.js';

// What importing the package does under Node; these tests load lib/ directly.
registerZod3();

const text = (schema: AnyZodSchema, options?: SchemaOptions): string =>
  JSON.stringify(schemaOf(schema, options));

/** Pairs of equivalent schemas, zod 4 first, zod 3 second. */
const pairs: [string, AnyZodSchema, AnyZodSchema][] = [
  [
    'plain fields, descriptions, integers, optional and default',
    z.object({
      a: z.string().describe('the a'),
      b: z.int().positive().optional(),
      c: z.boolean().default(true),
    }),
    z3.object({
      a: z3.string().describe('the a'),
      b: z3.number().int().positive().optional(),
      c: z3.boolean().default(true),
    }),
  ],
  [
    'string constraints and formats',
    z.object({
      s: z.string().min(1).max(9).regex(/^a/),
      e: z.email(),
      u: z.url(),
      id: z.uuid(),
      dt: z.iso.datetime(),
    }),
    z3.object({
      s: z3.string().min(1).max(9).regex(/^a/),
      e: z3.string().email(),
      u: z3.string().url(),
      id: z3.string().uuid(),
      dt: z3.string().datetime(),
    }),
  ],
  [
    'dates, with and without coercion or a default',
    z.object({
      d: z.date(),
      c: z.coerce.date(),
      o: z.date().optional(),
      def: z.date().default(new Date(0)),
    }),
    z3.object({
      d: z3.date(),
      c: z3.coerce.date(),
      o: z3.date().optional(),
      def: z3.date().default(new Date(0)),
    }),
  ],
  [
    'numbers with bounds and multiples',
    z.object({ n: z.number().gt(1).lt(5).multipleOf(0.5), m: z.number().min(0).max(10) }),
    z3.object({ n: z3.number().gt(1).lt(5).multipleOf(0.5), m: z3.number().min(0).max(10) }),
  ],
  [
    'nullable of every kind',
    z.object({
      s: z.string().nullable(),
      m: z.string().min(1).nullable(),
      e: z.enum(['a', 'b']).nullable(),
      l: z.literal('x').nullable(),
      o: z.object({ x: z.number() }).nullable(),
      d: z.date().nullable(),
      n: z.string().nullish(),
      desc: z.string().describe('d').nullable(),
    }),
    z3.object({
      s: z3.string().nullable(),
      m: z3.string().min(1).nullable(),
      e: z3.enum(['a', 'b']).nullable(),
      l: z3.literal('x').nullable(),
      o: z3.object({ x: z3.number() }).nullable(),
      d: z3.date().nullable(),
      n: z3.string().nullish(),
      desc: z3.string().describe('d').nullable(),
    }),
  ],
  [
    'enums, literals and unions',
    z.object({
      e: z.enum(['a', 'b']),
      ne: z.enum({ A: 'a', B: 'b' }),
      lit: z.literal('x'),
      nul: z.literal(null),
      u: z.union([z.string(), z.number()]),
      ul: z.union([z.literal('a'), z.literal('b')]),
      du: z.discriminatedUnion('k', [
        z.object({ k: z.literal('a') }),
        z.object({ k: z.literal('b'), n: z.number() }),
      ]),
      uo: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]).nullable(),
    }),
    z3.object({
      e: z3.enum(['a', 'b']),
      ne: z3.nativeEnum({ A: 'a', B: 'b' } as const),
      lit: z3.literal('x'),
      nul: z3.literal(null),
      u: z3.union([z3.string(), z3.number()]),
      ul: z3.union([z3.literal('a'), z3.literal('b')]),
      du: z3.discriminatedUnion('k', [
        z3.object({ k: z3.literal('a') }),
        z3.object({ k: z3.literal('b'), n: z3.number() }),
      ]),
      uo: z3.union([z3.object({ a: z3.string() }), z3.object({ b: z3.string() })]).nullable(),
    }),
  ],
  [
    'arrays and tuples',
    z.object({
      a: z.array(z.string()).min(1).max(3),
      t: z.tuple([z.string(), z.number()]),
      r: z.tuple([z.string()]).rest(z.number()),
      any: z.array(z.any()),
      opt: z.array(z.string().optional()),
    }),
    z3.object({
      a: z3.array(z3.string()).min(1).max(3),
      t: z3.tuple([z3.string(), z3.number()]),
      r: z3.tuple([z3.string()]).rest(z3.number()),
      any: z3.array(z3.any()),
      opt: z3.array(z3.string().optional()),
    }),
  ],
  [
    'objects: strict, passthrough, nested, empty',
    z.object({
      s: z.strictObject({ a: z.string() }),
      l: z.looseObject({ a: z.string() }),
      n: z.object({ x: z.object({ y: z.string().optional() }) }),
      e: z.object({}),
    }),
    z3.object({
      s: z3.object({ a: z3.string() }).strict(),
      l: z3.object({ a: z3.string() }).passthrough(),
      n: z3.object({ x: z3.object({ y: z3.string().optional() }) }),
      e: z3.object({}),
    }),
  ],
  [
    'any, unknown and catch stay required; effects, pipes, readonly and brand show their input',
    z.object({
      any: z.any(),
      unk: z.unknown(),
      c: z.string().catch('x'),
      t: z.string().transform((s) => s.length),
      p: z.preprocess((v) => v, z.number()),
      pi: z.string().pipe(z.coerce.number()),
      ro: z.object({ a: z.string() }).readonly(),
      b: z.string().brand('B'),
      lz: z.lazy(() => z.string()),
    }),
    z3.object({
      any: z3.any(),
      unk: z3.unknown(),
      c: z3.string().catch('x'),
      t: z3.string().transform((s) => s.length),
      p: z3.preprocess((v) => v, z3.number()),
      pi: z3.string().pipe(z3.coerce.number()),
      ro: z3.object({ a: z3.string() }).readonly(),
      b: z3.string().brand('B'),
      lz: z3.lazy(() => z3.string()),
    }),
  ],
  [
    'an intersection of objects',
    z.object({
      i: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number().optional() })),
    }),
    z3.object({
      i: z3.intersection(z3.object({ a: z3.string() }), z3.object({ b: z3.number().optional() })),
    }),
  ],
  ['no arguments', z.object({}), z3.object({})],
];

describe('schemaOf (zod 3)', () => {
  for (const [name, v4, v3] of pairs) {
    it(`gives the bytes of the zod 4 equivalent: ${name}`, () => {
      expect(text(v3)).to.equal(text(v4));
    });
    it(`gives the bytes of the zod 4 equivalent in strict mode: ${name}`, () => {
      expect(text(v3, { strict: true })).to.equal(text(v4, { strict: true }));
    });
  }

  it('reads schemas of the standalone zod 3 package as it reads zod/v3, and decodes with them', async () => {
    const made = standalone3.object({
      query: standalone3.string().describe('words'),
      limit: standalone3.number().int().min(1).default(20),
      since: standalone3.date().optional(),
    });
    const twin = z3.object({
      query: z3.string().describe('words'),
      limit: z3.number().int().min(1).default(20),
      since: z3.date().optional(),
    });
    expect(text(made)).to.equal(text(twin));
    expect(text(made, { strict: true })).to.equal(text(twin, { strict: true }));
    const search = tool({
      name: 'search',
      description: '',
      parameters: made,
      execute: ({ query, limit, since }) => `${query} ${limit} ${since?.getUTCFullYear()}`,
    });
    const settled = await batchResults([
      { tool: search, call: { id: 'a', args: '{"query":"x","since":"2024-05-01T00:00:00Z"}' } },
      { tool: search, call: { id: 'b', args: '{"query":"x","limit":0}' } },
    ]);
    expect(settled[0]).to.deep.equal({ result: { output: 'x 20 2024' } });
    expect((settled[1] as { error: Error }).error.message).to.equal(
      'invalid arguments: limit: expected a number >= 1, got 0',
    );
  });

  it('writes the canonical form itself, not merely the same as zod 4', () => {
    const schema = z3.object({
      q: z3.string().describe('query'),
      at: z3.date().nullable(),
      tags: z3.array(z3.string()).optional(),
      level: z3.enum(['low', 'high']).default('low'),
    });
    expect(text(schema)).to.equal(
      '{"type":"object","properties":{"q":{"type":"string","description":"query"},' +
        '"at":{"type":["string","null"],"format":"date-time"},"tags":{"type":"array","items":{"type":"string"}},' +
        '"level":{"type":"string","enum":["low","high"],"default":"low"}},"required":["q","at"]}',
    );
    expect(text(schema, { strict: true })).to.equal(
      '{"type":"object","properties":{"q":{"type":"string","description":"query"},' +
        '"at":{"type":["string","null"],"format":"date-time"},"tags":{"type":["array","null"],"items":{"type":"string"}},' +
        '"level":{"type":["string","null"],"enum":["low","high",null]}},"required":["q","at","tags","level"],"additionalProperties":false}',
    );
  });

  it('writes records as additionalProperties outside strict mode', () => {
    expect(text(z3.object({ r: z3.record(z3.number()) }))).to.equal(
      '{"type":"object","properties":{"r":{"type":"object","additionalProperties":{"type":"number"}}},"required":["r"]}',
    );
  });

  function refusal(schema: AnyZodSchema, options: SchemaOptions = { tool: 'old' }): string {
    try {
      compileZodSchema(schema, options);
    } catch (error) {
      expect(error).to.be.instanceOf(SchemaError);
      return (error as Error).message;
    }
    expect.fail('expected a SchemaError');
  }

  it('refuses what JSON Schema cannot carry, naming the tool and the path', () => {
    const cases: [AnyZodSchema, string][] = [
      [z3.bigint(), 'a bigint'],
      [z3.symbol(), 'a symbol'],
      [z3.undefined(), 'undefined'],
      [z3.void(), 'void'],
      [z3.nan(), 'NaN'],
      [z3.function(), 'a function'],
      [z3.map(z3.string(), z3.string()), 'a Map'],
      [z3.set(z3.string()), 'a Set'],
      [z3.promise(z3.string()), 'a promise'],
      [z3.never(), 'never'],
    ];
    for (const [schema, what] of cases) {
      expect(refusal(z3.object({ o: z3.object({ v: schema as z3.ZodTypeAny }) }))).to.equal(
        `tool "old": schema: o.v: ${what} cannot be represented in JSON Schema`,
      );
    }
  });

  it('refuses a recursive schema', () => {
    type Node = { next?: Node };
    const node: z3.ZodType<Node> = z3.lazy(() => z3.object({ next: node.optional() }));
    expect(refusal(z3.object({ head: node }))).to.equal(
      'tool "old": schema: head.next: recursive schema',
    );
  });

  it('refuses a non-object root, and records in strict mode', () => {
    expect(refusal(z3.string())).to.equal(
      'tool "old": schema: tool parameters must be an object schema',
    );
    expect(
      refusal(z3.object({ r: z3.record(z3.string()) }), { strict: true, tool: 'old' }),
    ).to.equal('tool "old": schema: r: a record cannot be expressed in strict mode');
  });
});
