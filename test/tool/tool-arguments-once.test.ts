/**
 * A typed call checked once on its success path (lib/tool-arguments.ts) decides exactly as the two
 * checks in turn (the JSON Schema the model read, then zod): over generated zod schemas, of kinds
 * that qualify and kinds that do not, and values near and far from them, both accept the same
 * values with the same decoded arguments and refuse the same values with the same message.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import * as z from 'zod';
import { ValidationError } from '../../index.js';
import { decodesOnce, onceReader } from '../../lib/schema/decode-once.js';
import { registerDecodeOnce, toolArguments } from '../../lib/tool-arguments.js';
import { scaled } from '../support/time.js';

/** A schema as data, so that one description gives the zod schema and values to try on it. */
type Spec =
  | {
      kind: 'string';
      min?: number;
      max?: number;
      check?: 'regex' | 'email' | 'trim' | 'catch' | 'refine' | 'startsWith' | 'uuid';
    }
  | {
      kind: 'number';
      int?: boolean;
      min?: number;
      max?: number;
      gt?: number;
      check?: 'multipleOf' | 'coerce' | 'transform' | 'int32' | 'refine';
    }
  | { kind: 'boolean' | 'null' | 'enum' | 'any' | 'date' }
  | { kind: 'literal'; value: string | number }
  | { kind: 'optional' | 'nullable' | 'readonly' | 'default' | 'pipe' | 'preprocess'; inner: Spec }
  | { kind: 'array'; inner: Spec; min?: number; max?: number }
  | { kind: 'tuple'; inner: Spec }
  | { kind: 'record'; inner: Spec }
  | { kind: 'object'; fields: [string, Spec][]; mode: 'strip' | 'strict' | 'loose' }
  | { kind: 'union'; a: Spec; b: Spec; discriminated?: boolean };

const KEYS = ['a', 'b', 'c', 'path', 'n'];

const leaf: fc.Arbitrary<Spec> = fc.oneof(
  fc.record(
    {
      kind: fc.constant('string' as const),
      min: fc.integer({ min: 0, max: 3 }),
      max: fc.integer({ min: 1, max: 4 }),
      check: fc.constantFrom(
        'regex' as const,
        'email' as const,
        'trim' as const,
        'catch' as const,
        'refine' as const,
        'startsWith' as const,
        'uuid' as const,
      ),
    },
    { requiredKeys: ['kind'] },
  ),
  fc.record(
    {
      kind: fc.constant('number' as const),
      int: fc.boolean(),
      min: fc.integer({ min: -3, max: 3 }),
      max: fc.integer({ min: 3, max: 9 }),
      gt: fc.integer({ min: -3, max: 3 }),
      check: fc.constantFrom(
        'multipleOf' as const,
        'coerce' as const,
        'transform' as const,
        'int32' as const,
        'refine' as const,
      ),
    },
    { requiredKeys: ['kind'] },
  ),
  fc.constantFrom<Spec>(
    { kind: 'boolean' },
    { kind: 'null' },
    { kind: 'enum' },
    { kind: 'any' },
    { kind: 'date' },
    { kind: 'literal', value: 'x' },
    { kind: 'literal', value: 1 },
  ),
);

const spec: fc.Arbitrary<Spec> = fc.letrec<{ node: Spec; object: Spec }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    leaf,
    fc.record({
      kind: fc.constantFrom(
        'optional' as const,
        'nullable' as const,
        'readonly' as const,
        'default' as const,
        'pipe' as const,
        'preprocess' as const,
      ),
      inner: tie('node'),
    }),
    fc.record(
      {
        kind: fc.constant('array' as const),
        inner: tie('node'),
        min: fc.integer({ min: 0, max: 2 }),
        max: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: ['kind', 'inner'] },
    ),
    fc.record({ kind: fc.constantFrom('tuple' as const, 'record' as const), inner: tie('node') }),
    fc.record(
      {
        kind: fc.constant('union' as const),
        a: tie('node'),
        b: tie('node'),
        discriminated: fc.boolean(),
      },
      { requiredKeys: ['kind', 'a', 'b'] },
    ),
    tie('object'),
  ),
  object: fc.record({
    kind: fc.constant('object' as const),
    fields: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('node')), {
      minLength: 1,
      maxLength: 3,
      selector: ([key]) => key,
    }),
    mode: fc.constantFrom('strip' as const, 'strip' as const, 'strict' as const, 'loose' as const),
  }),
})).node;

/** The zod schema a spec describes. */
function zodOf(s: Spec): z.ZodType {
  switch (s.kind) {
    case 'string': {
      if (s.check === 'email') return z.email();
      if (s.check === 'uuid') return z.uuid();
      let schema = z.string();
      if (s.min !== undefined) schema = schema.min(s.min);
      if (s.max !== undefined) schema = schema.max(s.max);
      if (s.check === 'regex') schema = schema.regex(/^[a-c😀]*$/u);
      if (s.check === 'trim') schema = schema.trim();
      if (s.check === 'startsWith') schema = schema.startsWith('a');
      if (s.check === 'refine') return schema.refine((v) => v !== 'bad', 'not bad');
      if (s.check === 'catch') return schema.catch('caught');
      return schema;
    }
    case 'number': {
      if (s.check === 'coerce') return z.coerce.number();
      if (s.check === 'int32') return z.int32();
      let schema = s.int === true ? z.number().int() : z.number();
      if (s.min !== undefined) schema = schema.min(s.min);
      if (s.max !== undefined) schema = schema.max(s.max);
      if (s.gt !== undefined) schema = schema.gt(s.gt - 10);
      if (s.check === 'multipleOf') schema = schema.multipleOf(0.5);
      if (s.check === 'transform') return schema.transform((v) => v * 2);
      if (s.check === 'refine') return schema.refine((v) => v !== 2, 'not two');
      return schema;
    }
    case 'boolean':
      return z.boolean();
    case 'null':
      return z.null();
    case 'enum':
      return z.enum(['a', 'b']);
    case 'any':
      return z.any();
    case 'date':
      return z.date();
    case 'literal':
      return z.literal(s.value);
    case 'optional':
      return zodOf(s.inner).optional();
    case 'nullable':
      return zodOf(s.inner).nullable();
    case 'readonly':
      return zodOf(s.inner).readonly();
    case 'default':
      return zodOf(s.inner).optional().default(undefined);
    case 'pipe':
      return z.any().pipe(zodOf(s.inner));
    case 'preprocess':
      return z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), zodOf(s.inner));
    case 'array': {
      let schema = z.array(zodOf(s.inner));
      if (s.min !== undefined) schema = schema.min(s.min);
      if (s.max !== undefined) schema = schema.max(s.max);
      return schema;
    }
    case 'tuple':
      return z.tuple([zodOf(s.inner)]);
    case 'record':
      return z.record(z.string(), zodOf(s.inner));
    case 'object': {
      const shape = Object.fromEntries(s.fields.map(([key, field]) => [key, zodOf(field)]));
      return s.mode === 'strict'
        ? z.strictObject(shape)
        : s.mode === 'loose'
          ? z.looseObject(shape)
          : z.object(shape);
    }
    case 'union':
      if (s.discriminated === true)
        return z.discriminatedUnion('k', [
          z.object({ k: z.literal('one'), v: zodOf(s.a) }),
          z.object({ k: z.literal('two'), v: zodOf(s.b) }),
        ]);
      return z.union([zodOf(s.a), zodOf(s.b)]);
  }
}

/** Any JSON, small. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Values near a spec (often fitting it, often just off) and far from it. */
function valueOf(s: Spec): fc.Arbitrary<unknown> {
  const near = ((): fc.Arbitrary<unknown> => {
    switch (s.kind) {
      case 'string':
        return fc.oneof(
          fc.constantFrom('', 'a', 'ab', 'abc', 'abcd', 'bad', ' a ', '😀', 'a😀', '😀😀'),
          fc.constantFrom('x@y.co', 'not an email', '123e4567-e89b-42d3-a456-426614174000'),
          fc.string({ maxLength: 5 }),
        );
      case 'number':
        return fc.oneof(
          fc.integer({ min: -12, max: 12 }),
          fc.constantFrom(0.5, 1.5, 2, 2.25, -0, 2 ** 31, 2 ** 60, 1e300, '3'),
          fc.double({ noNaN: true, noDefaultInfinity: true, min: -20, max: 20 }),
        );
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'enum':
        return fc.constantFrom('a', 'b', 'c');
      case 'any':
      case 'date':
        return anyJson;
      case 'literal':
        return fc.constantFrom(s.value, 'x', 1, '1');
      case 'optional':
      case 'nullable':
      case 'readonly':
      case 'default':
      case 'pipe':
      case 'preprocess':
        return fc.oneof(valueOf(s.inner), fc.constant(null));
      case 'array':
      case 'tuple':
        return fc.array(valueOf(s.inner), { maxLength: 4 });
      case 'record':
        return fc.dictionary(fc.constantFrom('p', 'q'), valueOf(s.inner), { maxKeys: 2 });
      case 'object':
        return objectOf(s.fields);
      case 'union':
        if (s.discriminated === true)
          return fc.oneof(
            fc.record({ k: fc.constant('one'), v: valueOf(s.a) }),
            fc.record({ k: fc.constantFrom('two', 'three'), v: valueOf(s.b) }),
          );
        return fc.oneof(valueOf(s.a), valueOf(s.b));
    }
  })();
  return fc.oneof({ arbitrary: near, weight: 6 }, { arbitrary: anyJson, weight: 1 });
}

/** An object with some of `fields` (each often left out), and now and then a key it does not declare. */
function objectOf(fields: [string, Spec][]): fc.Arbitrary<Record<string, unknown>> {
  const record = fc.record(
    Object.fromEntries(fields.map(([key, field]) => [key, valueOf(field)])),
    {
      requiredKeys: fields
        .filter(() => true)
        .map(([key]) => key)
        .slice(0, 1),
    },
  );
  return fc
    .tuple(record, fc.option(fc.tuple(fc.constantFrom('extra', 'zz'), anyJson), { freq: 4 }))
    .map(([value, extra]) => (extra === null ? value : { ...value, [extra[0]]: extra[1] }));
}

type Outcome = { ok: true; data: unknown } | { ok: false; name: string; message: string };

function outcome(read: (raw: string) => unknown, raw: string): Outcome {
  try {
    const data = read(raw);
    if (data instanceof Promise) throw new Error('unexpected async decoding');
    return { ok: true, data };
  } catch (err) {
    const error = err as Error;
    return {
      ok: false,
      name: error.name,
      message: error instanceof ValidationError ? error.message : `${error.name}: ${error.message}`,
    };
  }
}

describe('a typed call checked once decides as the two checks in turn', function () {
  this.timeout(scaled(120_000));
  // As the Node entry does (index.ts); a browser bundle checks twice.
  before(() => registerDecodeOnce(onceReader));

  it('over generated schemas and values: the same arguments accepted, the same message refused', () => {
    let qualified = 0;
    let schemas = 0;
    let acceptedOnce = 0;
    fc.assert(
      fc.property(
        spec.chain((s) =>
          fc.tuple(
            fc.constant(s),
            fc.array(valueOf({ kind: 'object', fields: [['a', s]], mode: 'strip' }), {
              minLength: 20,
              maxLength: 20,
            }),
          ),
        ),
        ([s, values]) => {
          const root = z.object({ a: zodOf(s) });
          let once;
          let twice;
          try {
            once = toolArguments(root, { strict: false, tool: 't' });
            // Without the reader, as in a browser bundle: both checks, in turn.
            registerDecodeOnce(undefined);
            try {
              twice = toolArguments(root, { strict: false, tool: 't' });
            } finally {
              registerDecodeOnce(onceReader);
            }
          } catch {
            return; // a schema tool() refuses (a date, say) has no calls to compare
          }
          schemas++;
          const fast = decodesOnce(root);
          if (fast) qualified++;
          for (const value of values) {
            const raw = JSON.stringify(value);
            const a = outcome(once.argsOf, raw);
            const b = outcome(twice.argsOf, raw);
            expect(a, `${JSON.stringify(s)} on ${raw}`).to.deep.equal(b);
            if (fast && a.ok) acceptedOnce++;
          }
        },
      ),
      { numRuns: 400, seed: 20261204 },
    );
    // The comparison is not empty: many schemas qualified, and many of their calls passed.
    expect(qualified).to.be.above(schemas / 5);
    expect(acceptedOnce).to.be.above(500);
  });

  it('names the kinds that qualify and those that keep both checks', () => {
    const qualifies = (schema: z.ZodType) => decodesOnce(z.object({ a: schema }));
    for (const yes of [
      z.string(),
      z.string().min(1).max(9),
      z.number().int().min(0),
      z.int32(),
      z.enum(['a']),
      z.array(z.boolean()).min(2),
      z.string().optional().nullable().default('x'),
      z.string().refine((v) => v !== ''),
      z.string().transform((v) => v.length),
      z.union([z.string(), z.null()]),
      z.strictObject({ b: z.literal(1) }),
    ])
      expect(qualifies(yes), yes._zod.def.type).to.equal(true);
    for (const no of [
      z.string().min(2), // JSON Schema counts code points, zod UTF-16 units
      z.email(),
      z.string().regex(/a/),
      z.string().trim(),
      z.coerce.number(),
      z.number().multipleOf(0.1),
      z.string().catch('x'),
      z.preprocess((v) => v, z.string()),
      z.tuple([z.string()]),
      z.record(z.string(), z.string()),
      z.discriminatedUnion('k', [z.object({ k: z.literal('a') })]),
      z.date(), // its text becomes a Date before zod sees it
    ])
      expect(qualifies(no), no._zod.def.type).to.equal(false);
  });
});
