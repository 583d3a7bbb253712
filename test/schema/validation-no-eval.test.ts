import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { ValidationError, type JsonSchema } from '../../index.js';
import { root } from '../support/cli.js';
import { ENGINES } from '../support/validators.js';
import { scaled } from '../support/time.js';

describe('validation where code generation is not allowed', function () {
  this.timeout(scaled(60_000));

  it('tool() and compileValidator work under --disallow-code-generation-from-strings', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--disallow-code-generation-from-strings',
        '--import',
        'tsx',
        join(root, 'test/fixtures/no-eval-tools.ts'),
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).to.deep.equal({
      evalWorks: false,
      zodGood: 'r:/tmp',
      zodBad: 'error: invalid arguments: path: expected at least 2 characters, got 1',
      jsonGood: '{"n":2}',
      jsonBad: 'error: invalid arguments: unexpected property "m"',
      direct: 'invalid arguments: a: expected string, got 1',
    });
  });
});

/** A small JSON Schema built from the keywords the messages phrase, nested a few levels. */
const leaf: fc.Arbitrary<JsonSchema | boolean> = fc.oneof(
  fc.constantFrom<JsonSchema | boolean>(
    { type: 'string' },
    { type: 'integer' },
    { type: ['string', 'null'] },
    { type: 'number', minimum: 0, maximum: 10 },
    { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
    { type: 'string', minLength: 2, maxLength: 4 },
    { type: 'string', pattern: '^[a-z]+$' },
    { type: 'string', format: 'date-time' },
    { format: 'email' },
    { enum: ['a', 'b', 1, null] },
    { const: 'x' },
    { type: 'boolean' },
    { not: { type: 'string' } },
    { type: 'array', uniqueItems: true, items: { type: 'integer' } },
    { type: 'array', uniqueItems: true },
    { type: 'array', contains: { type: 'string' }, maxContains: 2 },
    { type: 'object', propertyNames: { pattern: '^[a-z]$' } },
    { type: 'object', minProperties: 1, maxProperties: 2 },
    { type: 'object', dependentRequired: { a: ['b'] } },
    { if: { type: 'string' }, then: { minLength: 2 }, else: { type: 'number' } },
    true,
    false,
  ),
);
const schema: fc.Arbitrary<JsonSchema | boolean> = fc.letrec<{ node: JsonSchema | boolean }>(
  (tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.nat(2) }),
      fc.record({
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
        required: fc.subarray(['a', 'b', 'c']),
        additionalProperties: fc.boolean(),
      }),
      fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ oneOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ allOf: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
    ),
  }),
).node;
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom('a', 'b', 'c', 'D'),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('ab', 'x', 'a@b.c', 3, 0.5)),
  ),
);

function outcome(
  compile: (typeof ENGINES)[number]['compileValidator'],
  s: JsonSchema,
  raw: string,
): string {
  try {
    return JSON.stringify(compile(s).parse(raw));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.message;
  }
}

describe('the interpreter against ajv', () => {
  it('gives the same value or the same message for random schemas and values', () => {
    const [ajv, interpreter] = ENGINES;
    fc.assert(
      fc.property(schema, value, (s, v) => {
        const raw = JSON.stringify({ v });
        const wrapped: JsonSchema = { type: 'object', properties: { v: s }, required: ['v'] };
        expect(outcome(interpreter!.compileValidator, wrapped, raw)).to.equal(
          outcome(ajv!.compileValidator, wrapped, raw),
        );
      }),
      { numRuns: Number(process.env.PARITY_RUNS ?? 80), endOnFailure: true },
    );
  });
});
