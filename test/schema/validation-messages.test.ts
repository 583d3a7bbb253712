import { expect } from 'chai';
import { SchemaError, ValidationError, type JsonSchema } from '../../index.js';
import { ENGINES } from '../support/validators.js';
for (const { engine, compileValidator } of ENGINES) {
  /** The message parsing `value` against `{ type: object, properties: { v: schema } }` throws. */
  function messageFor(schema: JsonSchema, value: unknown): string {
    return messageOf({ type: 'object', properties: { v: schema } }, JSON.stringify({ v: value }));
  }

  function messageOf(schema: JsonSchema, raw: string): string {
    try {
      compileValidator(schema).parse(raw);
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      const { message } = error as ValidationError;
      expect(message).to.not.match(/[\r\n\u2028\u2029]/);
      return message;
    }
    return expect.fail(`expected ${raw} to be refused`);
  }

  describe(`validation messages (${engine})`, () => {
    describe('one phrase per keyword', () => {
      const cases: [string, JsonSchema, unknown, string][] = [
        ['type union', { type: ['string', 'null'] }, 1, 'expected string or null, got 1'],
        ['type of an object', { type: 'string' }, { a: 1 }, 'expected string, got object'],
        ['type of an array', { type: 'number' }, [1], 'expected number, got array'],
        ['const', { const: 'x' }, 'y', 'expected "x", got "y"'],
        ['enum of one', { enum: [3] }, 4, 'expected 3, got 4'],
        ['minimum', { minimum: 3 }, 1, 'expected a number >= 3, got 1'],
        ['maximum', { maximum: 3 }, 4, 'expected a number <= 3, got 4'],
        ['exclusiveMinimum', { exclusiveMinimum: 0 }, 0, 'expected a number > 0, got 0'],
        ['exclusiveMaximum', { exclusiveMaximum: 1 }, 1, 'expected a number < 1, got 1'],
        ['multipleOf', { multipleOf: 0.5 }, 0.3, 'expected a multiple of 0.5, got 0.3'],
        ['minLength', { minLength: 3 }, 'a', 'expected at least 3 characters, got 1'],
        ['maxLength', { maxLength: 1 }, 'ab', 'expected at most 1 character, got 2'],
        [
          'pattern',
          { pattern: '^[a-z]+$' },
          'A',
          'expected a string matching pattern "^[a-z]+$", got "A"',
        ],
        [
          'date-time',
          { type: 'string', format: 'date-time' },
          'x',
          'expected a date-time string, got "x"',
        ],
        ['email', { format: 'email' }, 'x', 'expected an email string, got "x"'],
        ['uuid', { format: 'uuid' }, 'x', 'expected a uuid string, got "x"'],
        ['minItems', { minItems: 2 }, [1], 'expected at least 2 items, got 1'],
        ['maxItems', { maxItems: 1 }, [1, 2], 'expected at most 1 item, got 2'],
        [
          'uniqueItems',
          { uniqueItems: true },
          [1, 2, 1],
          'expected unique items, got duplicates at [0] and [2]',
        ],
        ['minProperties', { minProperties: 1 }, {}, 'expected at least 1 property, got 0'],
        [
          'maxProperties',
          { maxProperties: 1 },
          { a: 1, b: 2 },
          'expected at most 1 property, got 2',
        ],
        [
          'contains',
          { contains: { type: 'string' } },
          [1],
          'expected at least 1 item matching the allowed shape',
        ],
        [
          'maxContains',
          { contains: { type: 'string' }, maxContains: 1 },
          ['a', 'b'],
          'expected exactly 1 item matching the allowed shape',
        ],
        ['not', { not: { type: 'string' } }, 'x', 'got "x", which is not allowed here'],
        [
          'dependentRequired',
          { dependentRequired: { a: ['b'] } },
          { a: 1 },
          'missing property "b", required when "a" is present',
        ],
        [
          'propertyNames',
          { propertyNames: { pattern: '^[a-z]+$' } },
          { Bad: 1 },
          'invalid property name: expected a string matching pattern "^[a-z]+$", got "Bad"',
        ],
        [
          'unevaluatedProperties',
          { type: 'object', properties: { a: {} }, unevaluatedProperties: false },
          { a: 1, b: 2 },
          'unexpected property "b"',
        ],
        [
          'oneOf matching twice',
          { oneOf: [{ type: 'number' }, { type: 'integer' }] },
          1,
          'matches more than one of the allowed shapes',
        ],
      ];
      for (const [keyword, schema, value, detail] of cases) {
        // Neither engine tracks evaluated properties (ajv's answers on the official suite are
        // wrong in places): both refuse the schema, saying so, rather than check it in part.
        if (keyword.startsWith('unevaluated')) {
          it(`${keyword}: refused when the schema is compiled`, () => {
            expect(() => compileValidator(schema, { tool: 't' })).to.throw(
              SchemaError,
              `tool "t": schema: ${keyword} is not supported: a schema that uses it is refused rather than checked in part`,
            );
          });
          continue;
        }
        it(`${keyword}: ${detail}`, () => {
          expect(messageFor(schema, value)).to.equal(`invalid arguments: v: ${detail}`);
        });
      }

      it('if/then reports what the selected branch wanted', () => {
        const schema: JsonSchema = {
          type: 'object',
          if: { properties: { mode: { const: 'file' } }, required: ['mode'] },
          then: { required: ['path'] },
          else: { required: ['url'] },
        };
        expect(messageOf(schema, '{"mode":"file"}')).to.equal(
          'invalid arguments: missing required property "path"',
        );
        expect(messageOf(schema, '{"mode":"web"}')).to.equal(
          'invalid arguments: missing required property "url"',
        );
      });

      it('a false schema says no value is allowed', () => {
        const schema = { type: 'object', properties: { gone: false } } as JsonSchema;
        expect(messageOf(schema, '{"gone":1}')).to.equal(
          'invalid arguments: gone: no value is allowed here',
        );
      });
    });

    describe('values in messages', () => {
      it('cuts long strings after 40 characters', () => {
        const message = messageFor({ type: 'number' }, 'y'.repeat(1000));
        expect(message).to.equal(`invalid arguments: v: expected number, got "${'y'.repeat(40)}…"`);
      });

      it('escapes control characters and line separators', () => {
        expect(messageFor({ type: 'number' }, 'a\nb\u2028c')).to.equal(
          'invalid arguments: v: expected number, got "a\\nb\\u2028c"',
        );
      });

      it('writes booleans, null and numbers as JSON', () => {
        expect(messageFor({ type: 'string' }, true)).to.equal(
          'invalid arguments: v: expected string, got true',
        );
        expect(messageFor({ type: 'string' }, -2.5e-7)).to.equal(
          'invalid arguments: v: expected string, got -2.5e-7',
        );
      });

      it('lists at most 20 enum members', () => {
        const members = Array.from({ length: 30 }, (_, i) => `m${i}`);
        const message = messageFor({ enum: members }, 'x');
        expect(message).to.include('"m19", …], got "x"');
        expect(message).to.not.include('"m20"');
      });
    });

    describe('paths', () => {
      const nested: JsonSchema = {
        type: 'object',
        properties: {
          a: {
            type: 'object',
            properties: {
              b: {
                type: 'array',
                items: { type: 'object', properties: { c: { type: 'string' } } },
              },
            },
          },
        },
      };

      it('dots properties and brackets array indexes', () => {
        expect(messageOf(nested, '{"a":{"b":[{},{"c":1}]}}')).to.equal(
          'invalid arguments: a.b[1].c: expected string, got 1',
        );
      });

      it('brackets and quotes keys that are not identifiers, numeric ones included', () => {
        const schema: JsonSchema = {
          type: 'object',
          properties: {
            'we ird': { type: 'object', properties: { '0': { type: 'string' } } },
            'a/b~c': { type: 'string' },
          },
        };
        expect(messageOf(schema, '{"we ird":{"0":1}}')).to.equal(
          'invalid arguments: ["we ird"]["0"]: expected string, got 1',
        );
        expect(messageOf(schema, '{"a/b~c":1}')).to.equal(
          'invalid arguments: ["a/b~c"]: expected string, got 1',
        );
      });

      it('names a missing or unexpected property in the message, at the path of its object', () => {
        const schema: JsonSchema = {
          type: 'object',
          properties: {
            opts: {
              type: 'object',
              required: ['x y'],
              additionalProperties: false,
              properties: { 'x y': {} },
            },
          },
        };
        expect(messageOf(schema, '{"opts":{}}')).to.equal(
          'invalid arguments: opts: missing required property "x y"',
        );
        expect(messageOf(schema, '{"opts":{"x y":1,"z":2}}')).to.equal(
          'invalid arguments: opts: unexpected property "z"',
        );
      });

      it("reads a required property as the object's own, never from Object.prototype", () => {
        const schema: JsonSchema = {
          type: 'object',
          properties: { constructor: { type: 'string' } },
          required: ['constructor', 'toString'],
        };
        expect(messageOf(schema, '{}')).to.equal(
          'invalid arguments: missing required property "constructor"',
        );
        expect(messageOf(schema, '{"constructor":"c"}')).to.equal(
          'invalid arguments: missing required property "toString"',
        );
      });
    });

    describe('unions', () => {
      it('lists the types of branches that all failed on the type', () => {
        const schema = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
        expect(messageFor(schema, true)).to.equal(
          'invalid arguments: v: expected string or integer, got true',
        );
      });

      it('reports the branch that matched the type but failed inside', () => {
        const schema = { anyOf: [{ type: 'string' }, { type: 'object', required: ['x'] }] };
        expect(messageFor(schema, {})).to.equal(
          'invalid arguments: v: missing required property "x"',
        );
      });

      it('reports the branch whose discriminator matched', () => {
        const schema = {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'a' }, x: { type: 'string' } } },
            { type: 'object', properties: { kind: { const: 'b' }, y: { type: 'number' } } },
          ],
        };
        expect(messageFor(schema, { kind: 'b', y: 'q' })).to.equal(
          'invalid arguments: v.y: expected number, got "q"',
        );
        expect(messageFor(schema, { kind: 'c' })).to.equal(
          'invalid arguments: v.kind: expected one of ["a", "b"], got "c"',
        );
      });

      it('lists values and types together when every branch wanted one of them', () => {
        const schema = {
          anyOf: [
            { type: 'string', enum: ['a', 'b'] },
            { type: 'integer', minimum: 0 },
            { type: 'null' },
          ],
        };
        expect(messageFor(schema, 'c')).to.equal(
          'invalid arguments: v: expected an integer, null or one of ["a", "b"], got "c"',
        );
        expect(messageFor(schema, -1)).to.equal(
          'invalid arguments: v: expected a number >= 0, got -1',
        );
      });

      it('reports the branch a $ref leads to', () => {
        const schema: JsonSchema = {
          type: 'object',
          $defs: {
            Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
          },
          properties: { at: { anyOf: [{ $ref: '#/$defs/Point' }, { type: 'null' }] } },
        };
        expect(messageOf(schema, '{"at":{}}')).to.equal(
          'invalid arguments: at: missing required property "x"',
        );
        expect(messageOf(schema, '{"at":{"x":"1"}}')).to.equal(
          'invalid arguments: at.x: expected number, got "1"',
        );
      });

      it('reports the deepest failure of a recursive schema', () => {
        const schema: JsonSchema = {
          type: 'object',
          $defs: {
            node: {
              anyOf: [
                { type: 'string' },
                {
                  type: 'object',
                  properties: { child: { $ref: '#/$defs/node' } },
                  required: ['child'],
                },
              ],
            },
          },
          properties: { root: { $ref: '#/$defs/node' } },
        };
        expect(messageOf(schema, '{"root":{"child":{"child":1}}}')).to.equal(
          'invalid arguments: root.child.child: expected string or object, got 1',
        );
      });
    });
  });
}
