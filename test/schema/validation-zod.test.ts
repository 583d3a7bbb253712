import { expect } from 'chai';
import { z } from 'zod';
import * as v3 from 'zod/v3';
import { ValidationError } from '../../index.js';
import { zodValidationError } from '../../schema.js';

interface Parser {
  safeParse(value: unknown): { success: boolean; error?: unknown };
}

/** The message for parsing `input`, with the input given to zodValidationError or not. */
function messageOf(schema: Parser, input: unknown, withInput = true): string {
  const result = schema.safeParse(input);
  expect(result.success, 'the parse should fail').to.equal(false);
  const error = withInput
    ? zodValidationError(result.error, input)
    : zodValidationError(result.error);
  expect(error).to.be.instanceOf(ValidationError);
  expect(error.code).to.equal('invalid_arguments');
  expect(error.message).to.not.match(/[\r\n]/);
  return error.message;
}

/** The same arguments object in zod 4 and in zod 3. */
const v4Schema = z.object({
  name: z
    .string()
    .min(3)
    .refine((s) => s === s.toLowerCase(), 'must be lowercase'),
  count: z.number().int().max(5).optional(),
  even: z.number().multipleOf(2).optional(),
  level: z.enum(['low', 'high']).optional(),
  literal: z.literal('x').optional(),
  either: z.union([z.string(), z.number()]).optional(),
  shape: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('a'), x: z.string() }),
      z.object({ kind: z.literal('b'), y: z.number() }),
    ])
    .optional(),
  email: z.email().optional(),
  code: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  prefixed: z.string().startsWith('ab').optional(),
  tags: z.array(z.string()).min(1).optional(),
  strict: z.strictObject({ a: z.string() }).optional(),
  when: z.iso.datetime().optional(),
  'we ird': z.array(z.object({ q: z.boolean() })).optional(),
});

const v3Schema = v3.z.object({
  name: v3.z
    .string()
    .min(3)
    .refine((s) => s === s.toLowerCase(), 'must be lowercase'),
  count: v3.z.number().int().max(5).optional(),
  even: v3.z.number().multipleOf(2).optional(),
  level: v3.z.enum(['low', 'high']).optional(),
  literal: v3.z.literal('x').optional(),
  either: v3.z.union([v3.z.string(), v3.z.number()]).optional(),
  shape: v3.z
    .discriminatedUnion('kind', [
      v3.z.object({ kind: v3.z.literal('a'), x: v3.z.string() }),
      v3.z.object({ kind: v3.z.literal('b'), y: v3.z.number() }),
    ])
    .optional(),
  email: v3.z.string().email().optional(),
  code: v3.z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  prefixed: v3.z.string().startsWith('ab').optional(),
  tags: v3.z.array(v3.z.string()).min(1).optional(),
  strict: v3.z.object({ a: v3.z.string() }).strict().optional(),
  when: v3.z.string().datetime().optional(),
  'we ird': v3.z.array(v3.z.object({ q: v3.z.boolean() })).optional(),
});

/** Input, then the message both versions give when the input is passed along. */
const shared: [unknown, string][] = [
  [{}, 'missing required property "name"'],
  [{ name: 5 }, 'name: expected string, got 5'],
  [{ name: 'ab' }, 'name: expected at least 3 characters, got 2'],
  [{ name: 'Abc' }, 'name: must be lowercase'],
  [{ name: 'abc', count: 1.5 }, 'count: expected integer, got 1.5'],
  [{ name: 'abc', count: 7 }, 'count: expected a number <= 5, got 7'],
  [{ name: 'abc', even: 3 }, 'even: expected a multiple of 2, got 3'],
  [{ name: 'abc', level: 'mid' }, 'level: expected one of ["low", "high"], got "mid"'],
  [{ name: 'abc', literal: 'y' }, 'literal: expected "x", got "y"'],
  [{ name: 'abc', either: true }, 'either: expected string or number, got true'],
  [{ name: 'abc', shape: { kind: 'c' } }, 'shape.kind: expected one of ["a", "b"], got "c"'],
  [{ name: 'abc', shape: { kind: 'b', y: 'q' } }, 'shape.y: expected number, got "q"'],
  [{ name: 'abc', shape: { kind: 'a' } }, 'shape: missing required property "x"'],
  [{ name: 'abc', email: 'x' }, 'email: expected an email string, got "x"'],
  [{ name: 'abc', prefixed: 'x' }, 'prefixed: expected a string starting with "ab", got "x"'],
  [{ name: 'abc', tags: [] }, 'tags: expected at least 1 item, got 0'],
  [{ name: 'abc', strict: { a: 'x', b: 1 } }, 'strict: unexpected property "b"'],
  [{ name: 'abc', when: 'noon' }, 'when: expected a date-time string, got "noon"'],
  [{ name: 'abc', 'we ird': [{ q: 1 }] }, '["we ird"][0].q: expected boolean, got 1'],
];

describe('zodValidationError', () => {
  for (const [version, schema] of [
    ['zod 4', v4Schema],
    ['zod 3', v3Schema],
  ] as const) {
    describe(version, () => {
      for (const [input, detail] of shared) {
        it(`${JSON.stringify(input)} → ${detail}`, () => {
          expect(messageOf(schema, input)).to.equal(`invalid arguments: ${detail}`);
        });
      }

      it('still names a missing property without the input', () => {
        expect(messageOf(schema, {}, false)).to.equal(
          'invalid arguments: missing required property "name"',
        );
      });

      it('passes a refinement message through on one line', () => {
        const refined: Parser =
          version === 'zod 4'
            ? z.object({ a: z.string() }).refine(() => false, 'a and b\nmust differ')
            : v3.z.object({ a: v3.z.string() }).refine(() => false, 'a and b\nmust differ');
        expect(messageOf(refined, { a: 'x' })).to.equal('invalid arguments: a and b must differ');
      });
    });
  }

  describe('zod 4 only', () => {
    it('shows the pattern of a regex check', () => {
      expect(messageOf(v4Schema, { name: 'abc', code: 'ab' })).to.equal(
        'invalid arguments: code: expected a string matching pattern /^[A-Z]{3}$/, got "ab"',
      );
    });

    it('reports an invalid record key as a property name', () => {
      const schema = z.object({ m: z.record(z.string().min(2), z.number()) });
      expect(messageOf(schema, { m: { a: 1 } })).to.equal(
        'invalid arguments: m: invalid property name: expected at least 2 characters, got 1',
      );
    });

    it('takes the received value from the issue when zod reports it', () => {
      const result = z.object({ n: z.number() }).safeParse({ n: 'x' }, { reportInput: true });
      expect(zodValidationError(result.error).message).to.equal(
        'invalid arguments: n: expected number, got "x"',
      );
    });

    it('names only the type received when neither the input nor the issue carries the value', () => {
      expect(messageOf(v4Schema, { name: 'abc', count: 'x' }, false)).to.equal(
        'invalid arguments: count: expected number, got string',
      );
    });
  });

  describe('zod 3 only', () => {
    it('says a regex failed without its pattern, which v3 does not report', () => {
      expect(messageOf(v3Schema, { name: 'abc', code: 'ab' })).to.equal(
        'invalid arguments: code: expected a string matching the required pattern, got "ab"',
      );
    });

    it('uses the received value v3 reports for enums and literals', () => {
      expect(messageOf(v3Schema, { name: 'abc', level: 'mid' }, false)).to.equal(
        'invalid arguments: level: expected one of ["low", "high"], got "mid"',
      );
    });
  });

  it('wraps anything that is not a ZodError at the root', () => {
    const error = zodValidationError(new Error('odd\nfailure'));
    expect(error).to.be.instanceOf(ValidationError);
    expect(error.message).to.equal('invalid arguments: odd failure');
  });
});
