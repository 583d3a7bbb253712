import { expect } from 'chai';
import { z } from 'zod';
import fc from 'fast-check';
import { SchemaError, tool, ValidationError, type JsonSchema } from '../../index.js';
import { compileValidator } from '../../schema.js';
import { linearRegExp } from '../../lib/validation/linear-regexp.js';
import { scaled } from '../support/time.js';

const evil = 'a'.repeat(30) + '!';

function refusal(schema: JsonSchema, raw: string, codeGeneration?: boolean): string {
  const validator = compileValidator(schema, { tool: 't', codeGeneration });
  try {
    validator.parse(raw);
  } catch (err) {
    expect(err).to.be.instanceOf(ValidationError);
    return (err as Error).message;
  }
  return expect.fail(`expected ${raw} to be refused`);
}

describe('schema patterns from elsewhere', function () {
  // A backtracking engine takes about a minute on each of these; RE2 takes microseconds.
  this.timeout(scaled(10_000));

  for (const codeGeneration of [true, false]) {
    const engine = codeGeneration ? 'ajv' : 'the interpreter';
    it(`matches a catastrophic \`pattern\` in linear time (${engine})`, () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: { s: { type: 'string', pattern: '^(a+)+$' } },
      };
      expect(refusal(schema, JSON.stringify({ s: evil }), codeGeneration)).to.match(
        /^invalid arguments: s: /,
      );
      expect(compileValidator(schema, { codeGeneration }).parse('{"s":"aaaa"}')).to.deep.equal({
        s: 'aaaa',
      });
    });

    it(`matches a catastrophic \`patternProperties\` key in linear time (${engine})`, () => {
      const schema: JsonSchema = {
        type: 'object',
        patternProperties: { '^(a+)+$': { type: 'number' } },
        additionalProperties: false,
      };
      expect(refusal(schema, JSON.stringify({ [evil]: 1 }), codeGeneration)).to.match(
        /^invalid arguments: /,
      );
      expect(compileValidator(schema, { codeGeneration }).parse('{"aaa":1}')).to.deep.equal({
        aaa: 1,
      });
    });
  }

  it('keeps ECMAScript pattern syntax: escapes, classes, \\u, \\p{..}, and search semantics', () => {
    const cases: [string, string, boolean][] = [
      ['^\\d{3}-\\d{4}$', '555-1234', true],
      ['^\\d{3}-\\d{4}$', '555-12345', false],
      ['^\\u00e9+$', 'éé', true],
      ['^\\p{Lu}', 'Élan', true],
      ['^\\p{Lu}', 'élan', false],
      ['b', 'abc', true],
      ['^[a-z_][a-z0-9_]*$', 'snake_case', true],
      ['^[a-z_][a-z0-9_]*$', 'Snake', false],
      ['^(?<year>\\d{4})$', '2024', true],
      // \s, \S and . mean what they mean in ECMAScript, not in RE2.
      ['^\\S+$', 'a\u00a0b', false],
      ['^a\\sb$', 'a\u00a0b', true],
      ['^a[\\s,]b$', 'a\u2028b', true],
      ['^a\\sb$', 'a\vb', true],
      ['^a.b$', 'a\rb', false],
      ['^a.b$', 'aéb', true],
      ['^a.b$', 'a\u{1f600}b', true],
      ['^a\\.b$', 'axb', false],
      ['^[^]$', '\n', true],
      ['^[.]$', 'x', false],
    ];
    for (const [pattern, value, ok] of cases) {
      const validator = compileValidator({
        type: 'object',
        properties: { s: { type: 'string', pattern } },
      });
      const run = (): unknown => validator.parse(JSON.stringify({ s: value }));
      if (ok) expect(run, `${pattern} on ${value}`).to.not.throw();
      else expect(run, `${pattern} on ${value}`).to.throw(ValidationError);
    }
  });

  it('refuses, with a SchemaError naming the tool, a pattern that is invalid or needs backtracking', () => {
    for (const pattern of ['(', '^[\\w-.]+$', '^(?!x).*$', '^(a)\\1$']) {
      expect(
        () =>
          compileValidator(
            { type: 'object', properties: { s: { type: 'string', pattern } } },
            { tool: 'remote' },
          ),
        pattern,
      ).to.throw(SchemaError, /remote/);
    }
  });

  it('runs the patterns of a zod-made tool natively, lookahead included', async () => {
    const password = tool({
      name: 'password',
      description: '',
      parameters: z.object({ p: z.string().regex(/^(?=.*\d).{4,}$/) }),
      execute: ({ p }) => p.length,
    });
    expect(password.parameters).to.have.nested.property('properties.p.pattern');
    const validator = compileValidator(password.parameters, { patterns: 'native' });
    expect(() => validator.parse('{"p":"abc1"}')).to.not.throw();
    expect(() => validator.parse('{"p":"abcd"}')).to.throw(ValidationError);
  });

  it('refuses a plain JSON Schema tool() whose pattern needs backtracking, when it is built', () => {
    expect(() =>
      tool({
        name: 'plain',
        description: '',
        parameters: { type: 'object', properties: { s: { type: 'string', pattern: '(?=a)' } } },
        execute: () => '',
      }),
    ).to.throw(SchemaError, /plain/);
  });

  it('agrees with JavaScript on patterns found in real schemas, for random strings', () => {
    const patterns = [
      '^[a-z0-9]+(?:-[a-z0-9]+)*$',
      '^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$',
      '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
      '^#?([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$',
      '^\\d{4}-\\d{2}-\\d{2}$',
      '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
      '^\\S(.*\\S)?$',
      '^(https?|ftp)://[^\\s/$.?#].[^\\s]*$',
      '^[A-Z_][A-Z0-9_]*$',
      '\\bfoo\\b',
      '^\\w+$',
      '^[\\p{L}\\p{N} ]+$',
      '^(a|ab)(c|bcd)(d*)$',
      '^.{1,5}$',
      '^[^]*x$',
      '^\\s*$',
      '^\\/?[a-z]+(\\/[a-z]+)*$',
    ];
    const chars = fc.constantFrom(
      ...'aAbBcdfxz09-_.@/:# \t\n\r\u00a0\u2028é😀?$'.split(''),
      '\u{1f600}',
    );
    const text = fc.array(chars, { maxLength: 24 }).map((list) => list.join(''));
    for (const pattern of patterns) {
      const native = new RegExp(pattern, 'u');
      const linear = linearRegExp(pattern, 'u');
      fc.assert(
        fc.property(text, (input) => linear.test(input) === native.test(input)),
        { numRuns: 300, seed: 42 },
      );
    }
  });
});
