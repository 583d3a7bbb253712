import { expect } from 'chai';
import { z } from 'zod';
import { compileValidator, SchemaError, tool, ValidationError, type JsonSchema } from '../index.js';

const evil = 'a'.repeat(30) + '!';

function refusal(schema: JsonSchema, raw: string): string {
  const validator = compileValidator(schema, { tool: 't' });
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
  this.timeout(10_000);

  it('matches a catastrophic `pattern` in linear time', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' } },
    };
    expect(refusal(schema, JSON.stringify({ s: evil }))).to.match(/^invalid arguments: s: /);
    expect(compileValidator(schema).parse('{"s":"aaaa"}')).to.deep.equal({ s: 'aaaa' });
  });

  it('matches a catastrophic `patternProperties` key in linear time', () => {
    const schema: JsonSchema = {
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'number' } },
      additionalProperties: false,
    };
    expect(refusal(schema, JSON.stringify({ [evil]: 1 }))).to.match(/^invalid arguments: /);
    expect(compileValidator(schema).parse('{"aaa":1}')).to.deep.equal({ aaa: 1 });
  });

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
});
