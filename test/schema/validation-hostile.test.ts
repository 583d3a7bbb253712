import { expect } from 'chai';
import fc from 'fast-check';
import { ValidationError, type JsonSchema } from '../../index.js';
import { ENGINES } from '../support/validators.js';
for (const { engine, compileValidator } of ENGINES) {
  const anyObject = compileValidator(undefined);

  function refusal(raw: string, schema?: JsonSchema): ValidationError {
    try {
      compileValidator(schema).parse(raw);
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      return error as ValidationError;
    }
    return expect.fail('expected the arguments to be refused');
  }

  describe(`validation of hostile input (${engine})`, () => {
    afterEach(() => {
      // A failed guard must not leak into the next test.
      expect(({} as { [key: string]: unknown }).polluted).to.equal(undefined);
      expect(({} as { [key: string]: unknown }).x).to.equal(undefined);
    });

    describe('prototype keys', () => {
      it('refuses an own __proto__ key at the root', () => {
        const error = refusal('{"__proto__":{"polluted":1}}');
        expect(error.message).to.equal('invalid arguments: property "__proto__" is not allowed');
        expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
      });

      it('refuses a __proto__ key at any depth, naming the object that holds it', () => {
        expect(refusal('{"a":{"b":[{"__proto__":{}}]}}').message).to.equal(
          'invalid arguments: a.b[0]: property "__proto__" is not allowed',
        );
      });

      it('refuses a __proto__ key spelt with escapes', () => {
        expect(refusal('{"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":1}}').message).to.equal(
          'invalid arguments: property "__proto__" is not allowed',
        );
      });

      it('accepts __proto__ as a string value', () => {
        expect(anyObject.parse('{"name":"__proto__"}')).to.deep.equal({ name: '__proto__' });
      });

      it('keeps constructor and prototype keys as plain data, safe to copy', () => {
        const value = anyObject.parse('{"constructor":{"prototype":{"x":1}}}') as object;
        expect(Object.getPrototypeOf(value)).to.equal(Object.prototype);
        const assigned = Object.assign({}, value);
        const spread = { ...value };
        const cloned = structuredClone(value);
        for (const copy of [assigned, spread, cloned]) {
          expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
          expect(copy).to.deep.equal({ constructor: { prototype: { x: 1 } } });
        }
        expect(({} as { x?: unknown }).x).to.equal(undefined);
      });

      it('checks constructor against the schema like any property', () => {
        const schema: JsonSchema = {
          type: 'object',
          properties: { constructor: { type: 'string' } },
        };
        expect(refusal('{"constructor":{"prototype":{}}}', schema).message).to.equal(
          'invalid arguments: constructor: expected string, got object',
        );
      });
    });

    describe('size', () => {
      it('refuses 100k-deep nesting before parsing it', () => {
        const raw = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
        expect(refusal(raw).message).to.equal(
          'invalid arguments: arguments are nested deeper than 256 levels',
        );
      });

      it('counts the root object as the first of 256 levels', () => {
        const at = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
        expect(() => anyObject.parse(at(256))).to.not.throw();
        expect(refusal(at(257)).message).to.match(/nested deeper than 256 levels$/);
      });

      it('does not count brackets inside strings, escaped quotes included', () => {
        const text = `\\"${'['.repeat(1000)}`;
        expect(anyObject.parse(`{"a":"${text}"}`)).to.deep.equal({ a: `"${'['.repeat(1000)}` });
      });

      it('refuses a 5 MB string by its length', () => {
        const raw = `{"a":"${'x'.repeat(5 * 1024 * 1024)}"}`;
        expect(refusal(raw).message).to.equal(
          `invalid arguments: arguments are ${raw.length} characters long; the limit is 1048576`,
        );
      });

      it('accepts text exactly at the limit and refuses one character more', () => {
        const raw = `{"a":"${'x'.repeat(1_048_576 - 8)}"}`;
        expect(raw.length).to.equal(1_048_576);
        expect((anyObject.parse(raw) as { a: string }).a).to.have.length(1_048_568);
        expect(refusal(`${raw} `).message).to.match(
          /1048577 characters long; the limit is 1048576$/,
        );
      });
    });

    describe('strings and numbers at the edges', () => {
      it('passes lone surrogates through and writes them escaped in messages', () => {
        expect(anyObject.parse('{"s":"\\ud800"}')).to.deep.equal({ s: '\ud800' });
        expect(anyObject.parse(`{"s":"\udc00x"}`)).to.deep.equal({ s: '\udc00x' });
        const schema: JsonSchema = { type: 'object', properties: { s: { type: 'number' } } };
        expect(refusal('{"s":"\\ud800"}', schema).message).to.equal(
          'invalid arguments: s: expected number, got "\\ud800"',
        );
      });

      it('never cuts a message inside a surrogate pair', () => {
        const schema: JsonSchema = { type: 'object', properties: { s: { type: 'number' } } };
        const emoji = '😀'.repeat(30);
        const message = refusal(JSON.stringify({ s: `x${emoji}` }), schema).message;
        expect(message).to.equal(
          `invalid arguments: s: expected number, got "x${'😀'.repeat(19)}…"`,
        );
      });

      it('refuses a number JSON cannot hold where the schema wants a number', () => {
        const schema: JsonSchema = {
          type: 'object',
          properties: { n: { type: 'number' }, i: { type: 'integer' } },
        };
        expect(refusal('{"n":1e309}', schema).message).to.equal(
          'invalid arguments: n: expected number, got an out-of-range number',
        );
        expect(refusal('{"i":-1e999}', schema).message).to.equal(
          'invalid arguments: i: expected integer, got an out-of-range number',
        );
      });

      it('keeps -0, tiny and huge numbers as JSON.parse reads them', () => {
        const schema: JsonSchema = {
          type: 'object',
          properties: { z: { type: 'integer' }, t: { type: 'number' }, h: { type: 'integer' } },
        };
        const value = compileValidator(schema).parse(
          '{"z":-0,"t":1e-400,"h":123456789012345678901234567890}',
        ) as {
          z: number;
          t: number;
          h: number;
        };
        expect(Object.is(value.z, -0)).to.equal(true);
        expect(value.t).to.equal(0);
        expect(value.h).to.equal(1.2345678901234568e29);
      });
    });

    describe('properties', () => {
      const schema: JsonSchema = {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, pattern: '^[a-z]+$' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          level: { enum: ['low', 'high'] },
          nested: { anyOf: [{ type: 'object', required: ['x'] }, { type: 'null' }] },
        },
        required: ['name'],
      };
      const validator = compileValidator(schema, { limits: { maxDepth: 8 } });

      function outcome(raw: string): unknown {
        try {
          return validator.parse(raw);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          expect(error.message).to.match(/^invalid arguments: [^\r\n\u2028\u2029]+$/);
          expect(error.message.length).to.be.below(400);
          return error;
        }
      }

      it('random text only ever gives a value or a one-line ValidationError', () => {
        fc.assert(
          fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (raw) => {
            outcome(raw);
          }),
          { numRuns: 1000 },
        );
      });

      it('random JSON only ever gives a value or a one-line ValidationError', () => {
        fc.assert(
          fc.property(fc.json({ depthSize: 'large', maxDepth: 12 }), (raw) => {
            outcome(raw);
          }),
          { numRuns: 1000 },
        );
      });

      it('random JSON with random cuts only ever gives a value or a one-line ValidationError', () => {
        fc.assert(
          fc.property(fc.json(), fc.nat(), fc.nat(), (raw, a, b) => {
            const start = a % (raw.length + 1);
            outcome(raw.slice(0, start) + raw.slice(start + (b % 4)));
          }),
          { numRuns: 1000 },
        );
      });

      it('a __proto__ key hidden anywhere in a random object is refused', () => {
        fc.assert(
          fc.property(
            fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })),
            fc.nat(),
            (object, pick) => {
              const holders: object[] = [];
              const collect = (value: unknown): void => {
                if (typeof value !== 'object' || value === null) return;
                if (!Array.isArray(value)) holders.push(value);
                Object.values(value).forEach(collect);
              };
              collect(object);
              const holder = holders[pick % holders.length]!;
              Object.defineProperty(holder, '__proto__', {
                value: { polluted: 1 },
                enumerable: true,
              });
              const error = refusal(JSON.stringify(object));
              expect(error.detail).to.equal('property "__proto__" is not allowed');
            },
          ),
          { numRuns: 300 },
        );
      });

      it('a random object comes back equal, or is refused for a reason the model can act on', () => {
        fc.assert(
          fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (object) => {
            const raw = JSON.stringify(object);
            try {
              expect(anyObject.parse(raw)).to.deep.equal(JSON.parse(raw));
            } catch (error) {
              expect(error).to.be.instanceOf(ValidationError);
              expect((error as ValidationError).detail).to.equal(
                'property "__proto__" is not allowed',
              );
            }
          }),
          { numRuns: 500 },
        );
      });
    });
  });
}
