import { expect } from 'chai';
import { SchemaError, ValidationError, type JsonSchema } from '../../index.js';
import { DEFAULT_LIMITS } from '../../schema.js';
import { compileSchema, SCHEMA_CACHE_SIZE } from '../../lib/validation/compile.js';
import { ENGINES } from '../support/validators.js';
for (const { engine, compileValidator } of ENGINES) {
  /** The message `parse` throws for `raw`, failing the test when it does not throw a ValidationError. */
  function failure(schema: JsonSchema | undefined, raw: string): string {
    const validator = compileValidator(schema);
    try {
      validator.parse(raw);
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      const message = (error as ValidationError).message;
      expect(message).to.not.match(/[\r\n]/);
      return message;
    }
    expect.fail(`expected ${raw} to be refused`);
  }

  const readFile: JsonSchema = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      level: { type: 'string', enum: ['low', 'high'] },
      verbose: { type: 'boolean' },
      count: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
      opts: {
        type: 'object',
        properties: { x: { type: 'string' } },
        required: ['x'],
        additionalProperties: false,
      },
    },
    required: ['path'],
    additionalProperties: false,
  };

  describe(`compileValidator (${engine})`, () => {
    describe('the messages of the design', () => {
      const cases: [string, string][] = [
        ['{', "invalid arguments: not valid JSON: expected property name or '}' at position 1"],
        ['[]', 'invalid arguments: expected object, got array'],
        ['{}', 'invalid arguments: missing required property "path"'],
        ['{"path":"a","bogus":1}', 'invalid arguments: unexpected property "bogus"'],
        ['{"path":1}', 'invalid arguments: path: expected string, got 1'],
        ['{"path":"a","count":1.5}', 'invalid arguments: count: expected integer, got 1.5'],
        ['{"path":"a","verbose":"yes"}', 'invalid arguments: verbose: expected boolean, got "yes"'],
        ['{"path":null}', 'invalid arguments: path: expected string, got null'],
        [
          '{"path":"a","level":"mid"}',
          'invalid arguments: level: expected one of ["low", "high"], got "mid"',
        ],
        ['{"path":"a","tags":["x",2]}', 'invalid arguments: tags[1]: expected string, got 2'],
        ['{"path":"a","opts":{}}', 'invalid arguments: opts: missing required property "x"'],
        ['{"path":"a","opts":{"x":"1","y":2}}', 'invalid arguments: opts: unexpected property "y"'],
      ];
      for (const [raw, message] of cases) {
        it(`${raw} → ${message}`, () => {
          expect(failure(readFile, raw)).to.equal(message);
        });
      }
    });

    it('returns the parsed value, unchanged', () => {
      const validator = compileValidator(readFile);
      expect(validator.parse('{"path":"/etc/hosts","tags":["a"]}')).to.deep.equal({
        path: '/etc/hosts',
        tags: ['a'],
      });
    });

    it('checks a value parsed already with check(), with the messages of parse()', () => {
      const validator = compileValidator(readFile);
      const value = { path: 'a', tags: ['x'] };
      expect(validator.check(value)).to.equal(value);
      expect(() => validator.check({ path: 'a', tags: ['x', 2] })).to.throw(
        ValidationError,
        'invalid arguments: tags[1]: expected string, got 2',
      );
      expect(() => validator.check([])).to.throw(ValidationError, 'expected object, got array');
    });

    it('never coerces, fills defaults or removes properties', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: { n: { type: 'number' }, d: { type: 'string', default: 'x' } },
        additionalProperties: { type: 'number' },
      };
      const validator = compileValidator(schema);
      expect(validator.parse('{"extra":1}')).to.deep.equal({ extra: 1 });
      expect(() => validator.parse('{"n":"1"}')).to.throw(
        ValidationError,
        'n: expected number, got "1"',
      );
    });

    it('reads empty or blank text as {}', () => {
      const validator = compileValidator(undefined);
      expect(validator.parse('')).to.deep.equal({});
      expect(validator.parse(' \n\t ')).to.deep.equal({});
      expect(failure(readFile, '')).to.equal('invalid arguments: missing required property "path"');
    });

    it('gives each blank call its own object', () => {
      const validator = compileValidator(undefined);
      const first = validator.parse('') as { [key: string]: unknown };
      first.mutated = true;
      expect(validator.parse('')).to.deep.equal({});
    });

    it('accepts any object without a schema, unknown properties included', () => {
      const validator = compileValidator(undefined);
      expect(validator.parse('{"anything":[1,{"a":null}]}')).to.deep.equal({
        anything: [1, { a: null }],
      });
      expect(failure(undefined, '"text"')).to.equal(
        'invalid arguments: expected object, got "text"',
      );
    });

    it('refuses a root that is not an object, naming what it got', () => {
      expect(failure(undefined, '1')).to.equal('invalid arguments: expected object, got 1');
      expect(failure(undefined, 'null')).to.equal('invalid arguments: expected object, got null');
      expect(failure(undefined, 'true')).to.equal('invalid arguments: expected object, got true');
    });

    it('refuses arguments that are not text at all', () => {
      const validator = compileValidator(undefined);
      expect(() => validator.parse(undefined as unknown as string)).to.throw(
        ValidationError,
        'invalid arguments: expected JSON text, got nothing',
      );
      expect(() => validator.parse({ a: 1 } as unknown as string)).to.throw(
        ValidationError,
        'invalid arguments: expected JSON text, got object',
      );
    });

    it('reports JSON syntax errors on one line without the source text', () => {
      const message = failure(undefined, `{"a":"${'x'.repeat(500)}",}`);
      expect(message).to.match(/^invalid arguments: not valid JSON: /);
      expect(message).to.not.include('xxxxxxxxxx');
      expect(message.length).to.be.below(200);
      expect(failure(undefined, '{"a":"line\nbreak"}')).to.match(
        /^invalid arguments: not valid JSON: /,
      );
    });

    it('carries the path and the detail on the error', () => {
      try {
        compileValidator(readFile).parse('{"path":"a","tags":[1]}');
        expect.fail('should throw');
      } catch (error) {
        expect(error).to.be.instanceOf(ValidationError);
        const e = error as ValidationError;
        expect(e.code).to.equal('invalid_arguments');
        expect(e.path).to.equal('tags[0]');
        expect(e.detail).to.equal('expected string, got 1');
      }
    });

    describe('compiling', () => {
      it('compiles a schema once and shares it between equal schemas', () => {
        const schema = { type: 'object', properties: { once: { type: 'string' } } };
        const first = compileSchema(schema, 'a');
        expect(compileSchema(structuredClone(schema), 'b')).to.equal(first);
      });

      it('is not affected by later changes to the schema object', () => {
        const schema: JsonSchema = { type: 'object', properties: { k: { type: 'string' } } };
        const validator = compileValidator(schema);
        (schema.properties as { k: { type: string } }).k.type = 'number';
        expect(validator.parse('{"k":"still a string"}')).to.deep.equal({ k: 'still a string' });
      });

      it('refuses a schema ajv cannot compile with a SchemaError naming the tool', () => {
        const bad = { type: 'object', properties: { a: { type: 'strin' } } };
        expect(() => compileValidator(bad, { tool: 'read_file' }))
          .to.throw(SchemaError)
          .with.property('message')
          .that.match(/^tool "read_file": schema: /);
        expect(() => compileValidator({ $ref: '#/nowhere' })).to.throw(SchemaError, /^schema: /);
        expect(() => compileValidator({ minimum: 'x' })).to.throw(SchemaError);
      });

      it('refuses a schema that is not JSON', () => {
        const cyclic: JsonSchema = { type: 'object' };
        cyclic.properties = { self: cyclic };
        expect(() => compileValidator(cyclic, { tool: 't' })).to.throw(SchemaError, 'not JSON');
        expect(() => compileValidator([] as unknown as JsonSchema)).to.throw(SchemaError);
      });

      it('ignores unknown keywords and unknown formats', () => {
        const validator = compileValidator({
          type: 'object',
          'x-internal': true,
          properties: { a: { type: 'string', format: 'no-such-format', examples: ['x'] } },
        });
        expect(validator.parse('{"a":"anything"}')).to.deep.equal({ a: 'anything' });
      });

      it('reads a schema as 2020-12 unless $schema names draft-04, 06 or 07', () => {
        const draft7: JsonSchema = {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            pair: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
          },
        };
        expect(failure(draft7, '{"pair":["a","b"]}')).to.equal(
          'invalid arguments: pair: expected at most 1 item, got 2',
        );
        const draft4 = { ...draft7, $schema: 'http://json-schema.org/draft-04/schema#' };
        expect(failure(draft4, '{"pair":[1]}')).to.equal(
          'invalid arguments: pair[0]: expected string, got 1',
        );
        const modern: JsonSchema = {
          type: 'object',
          properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }], items: false } },
        };
        expect(failure(modern, '{"pair":["a","b"]}')).to.equal(
          'invalid arguments: pair: expected at most 1 item, got 2',
        );
      });

      it('accepts a $schema it has no meta-schema for', () => {
        for (const $schema of [
          'https://json-schema.org/draft/2019-09/schema',
          'urn:example:custom',
        ]) {
          const validator = compileValidator({ $schema, type: 'object' });
          expect(validator.parse('{}')).to.deep.equal({});
        }
      });

      it('keeps schemas that reuse an $id apart', () => {
        const a = compileValidator({
          $id: 'https://example.com/args.json',
          type: 'object',
          required: ['a'],
        });
        const b = compileValidator({
          $id: 'https://example.com/args.json',
          type: 'object',
          required: ['b'],
        });
        expect(a.parse('{"a":1}')).to.deep.equal({ a: 1 });
        expect(b.parse('{"b":1}')).to.deep.equal({ b: 1 });
        expect(() => a.parse('{"b":1}')).to.throw(ValidationError, 'missing required property "a"');
      });

      it('bounds its cache, and a validator keeps working after its schema is evicted', () => {
        const first = { type: 'object', required: ['first'] };
        const validator = compileValidator(first);
        const compiled = compileSchema(first, '');
        for (let i = 0; i < SCHEMA_CACHE_SIZE; i++) {
          compileSchema({ type: 'object', properties: { [`p${i}`]: { const: i } } }, '');
        }
        expect(compileSchema(first, '')).to.not.equal(compiled);
        expect(() => validator.parse('{}')).to.throw(ValidationError, '"first"');
        expect(validator.parse('{"first":1}')).to.deep.equal({ first: 1 });
      });
    });

    describe('limits', () => {
      it('defaults to 1 MiB of text and 256 levels of nesting', () => {
        expect(DEFAULT_LIMITS).to.deep.equal({ maxLength: 1_048_576, maxDepth: 256 });
      });

      it('applies the limits given', () => {
        const validator = compileValidator(undefined, { limits: { maxLength: 10, maxDepth: 2 } });
        expect(() => validator.parse('{"a":"0123456789"}')).to.throw(
          ValidationError,
          'invalid arguments: arguments are 18 characters long; the limit is 10',
        );
        expect(validator.parse('{"a":[]}')).to.deep.equal({ a: [] });
        expect(() => validator.parse('{"a":[[]]}')).to.throw(
          ValidationError,
          'invalid arguments: arguments are nested deeper than 2 levels',
        );
      });

      it('refuses a limit that is not a positive number', () => {
        expect(() => compileValidator(undefined, { limits: { maxDepth: 0 } })).to.throw(RangeError);
        expect(() => compileValidator(undefined, { limits: { maxLength: NaN } })).to.throw(
          RangeError,
        );
      });
    });
  });

  describe(`compileValidator: schemas that refer to themselves without end (${engine})`, () => {
    it('refuses a $ref cycle that consumes no data, naming the tool', () => {
      expect(() => compileValidator({ $ref: '#' } as JsonSchema, { tool: 'loop' })).to.throw(
        SchemaError,
        'tool "loop": schema: the schema refers to itself without end (a $ref cycle)',
      );
    });

    it('keeps recursion that consumes data, bounded by the depth limit', () => {
      const tree = { type: 'object', properties: { child: { $ref: '#' } } } as JsonSchema;
      const validator = compileValidator(tree, { tool: 'tree' });
      expect(validator.parse('{"child":{"child":{}}}')).to.deep.equal({ child: { child: {} } });
    });

    it('refuses a cycle ajv cannot compile with the same message', () => {
      const schema = {
        type: 'object',
        properties: { a: { $ref: '#/$defs/x' } },
        $defs: { x: { $ref: '#/$defs/x' } },
      } as JsonSchema;
      expect(() => compileValidator(schema, { tool: 'defs' })).to.throw(
        SchemaError,
        'tool "defs": schema: the schema refers to itself without end (a $ref cycle)',
      );
    });

    it('a cycle reached only by some values fails that call with one line, never a crash', () => {
      const schema = {
        type: 'object',
        properties: { a: { $ref: '#/$defs/x' } },
        $defs: { x: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/x' }] } },
      } as JsonSchema;
      const validator = compileValidator(schema, { tool: 'deep' });
      expect(validator.parse('{}')).to.deep.equal({});
      expect(() => validator.parse('{"a":1}')).to.throw(
        ValidationError,
        'invalid arguments: cannot be checked: the schema refers to itself without end',
      );
    });
  });
}
