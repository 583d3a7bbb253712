import { expect } from 'chai';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import {
  compileZodSchema,
  type AnyZodSchema,
  type SchemaOptions,
} from '../../lib/schema/schema.js';
import { registerZod3 } from '../../lib/schema/zod3.js';

// What importing the package does under Node; these tests load lib/ directly.
registerZod3();

const at = '2024-05-06T07:08:09.000Z';

/** The compiled prepare step, which these tests need to exist. */
function prepareOf(schema: AnyZodSchema, options?: SchemaOptions): (value: unknown) => unknown {
  const { prepare } = compileZodSchema(schema, options);
  expect(prepare, 'prepare').to.be.a('function');
  return prepare as (value: unknown) => unknown;
}

/** Arguments as validation hands them over: fresh from JSON.parse. */
const parsed = (json: string): Record<string, unknown> =>
  JSON.parse(json) as Record<string, unknown>;

describe('compileZodSchema prepare', () => {
  it('is undefined when there is nothing to rewrite', () => {
    const plain = z.object({
      a: z.string(),
      b: z.number().optional(),
      c: z.array(z.object({ d: z.boolean() })),
    });
    expect(compileZodSchema(plain).prepare).to.equal(undefined);
    expect(
      compileZodSchema(z.object({ a: z.string(), n: z.string().nullish() }), { strict: true })
        .prepare,
    ).to.equal(undefined);
    expect(compileZodSchema(z3.object({ a: z3.string().optional() })).prepare).to.equal(undefined);
  });

  describe('dates', () => {
    it('turns a date-time string into a Date where zod wants one, so zod decodes it', () => {
      const schema = z.object({ when: z.date(), coerced: z.coerce.date(), text: z.iso.datetime() });
      const out = prepareOf(schema)(parsed(`{"when":"${at}","coerced":"${at}","text":"${at}"}`));
      const decoded = schema.parse(out);
      expect(decoded.when).to.be.instanceOf(Date);
      expect(decoded.when.toISOString()).to.equal(at);
      expect(decoded.coerced.toISOString()).to.equal(at);
      expect(decoded.text).to.equal(at);
    });

    it('reaches dates nested in objects, arrays, tuples, records and wrappers', () => {
      const schema = z.object({
        o: z.object({ d: z.date().optional() }).nullable(),
        l: z.array(z.date().nullable()),
        t: z.tuple([z.string(), z.date()], z.date()),
        r: z.record(z.string(), z.date()),
        c: z.object({}).catchall(z.date()),
        w: z.date().default(new Date(0)).readonly(),
      });
      const out = prepareOf(schema)(
        parsed(
          `{"o":{"d":"${at}"},"l":["${at}",null],"t":["${at}","${at}","${at}"],"r":{"k":"${at}"},"c":{"x":"${at}"},"w":"${at}"}`,
        ),
      );
      const decoded = schema.parse(out);
      expect(decoded.o?.d).to.be.instanceOf(Date);
      expect(decoded.l[0]).to.be.instanceOf(Date);
      expect(decoded.l[1]).to.equal(null);
      expect(decoded.t[0]).to.equal(at);
      expect(decoded.t[1]).to.be.instanceOf(Date);
      expect(decoded.t[2]).to.be.instanceOf(Date);
      expect(decoded.r.k).to.be.instanceOf(Date);
      expect((decoded.c as Record<string, unknown>).x).to.be.instanceOf(Date);
      expect(decoded.w).to.be.instanceOf(Date);
    });

    it('picks the option of a discriminated union by its discriminator', () => {
      const schema = z.object({
        e: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('at'), when: z.date() }),
          z.object({ kind: z.literal('label'), when: z.string() }),
        ]),
      });
      const prepare = prepareOf(schema);
      expect(
        schema.parse(prepare(parsed(`{"e":{"kind":"at","when":"${at}"}}`))).e.when,
      ).to.be.instanceOf(Date);
      expect(
        schema.parse(prepare(parsed(`{"e":{"kind":"label","when":"${at}"}}`))).e.when,
      ).to.equal(at);
    });

    it('follows the order of a plain union, as zod does', () => {
      const dateFirst = z.object({ v: z.union([z.date(), z.string()]) });
      const stringFirst = z.object({ v: z.union([z.string(), z.date()]) });
      expect(prepareOf(dateFirst)(parsed(`{"v":"${at}"}`))).to.deep.equal({ v: new Date(at) });
      expect(prepareOf(stringFirst)(parsed(`{"v":"${at}"}`))).to.deep.equal({ v: at });
      expect(prepareOf(dateFirst)(parsed('{"v":"not a date"}'))).to.deep.equal({ v: 'not a date' });
    });

    it('works for zod 3 schemas', () => {
      const schema = z3.object({
        when: z3.date(),
        list: z3.array(z3.object({ at: z3.date().optional() })),
      });
      const decoded = schema.parse(
        prepareOf(schema)(parsed(`{"when":"${at}","list":[{"at":"${at}"},{}]}`)),
      );
      expect(decoded.when.toISOString()).to.equal(at);
      expect(decoded.list[0].at).to.be.instanceOf(Date);
      expect(decoded.list[1]).to.deep.equal({});
    });
  });

  describe('strict mode', () => {
    it('makes a null sent for an optional field absent, so zod sees undefined (and applies a default)', () => {
      const schema = z.object({
        a: z.string().optional(),
        b: z.number().default(3),
        c: z.string(),
      });
      const out = prepareOf(schema, { strict: true })(parsed('{"a":null,"b":null,"c":"x"}'));
      expect(out).to.deep.equal({ c: 'x' });
      expect(Object.keys(out as object)).to.deep.equal(['c']);
      expect(schema.parse(out)).to.deep.equal({ b: 3, c: 'x' });
    });

    it('keeps a null for an optional field whose schema accepts null', () => {
      const schema = z.object({
        a: z.string().nullish(),
        b: z.string().nullable().optional(),
        d: z.date().optional(),
      });
      const out = prepareOf(schema, { strict: true })(parsed('{"a":null,"b":null,"d":null}'));
      expect(out).to.deep.equal({ a: null, b: null });
    });

    it('reaches optional fields nested in objects, arrays and unions', () => {
      const schema = z.object({
        o: z.object({ x: z.string().optional() }),
        l: z.array(z.object({ y: z.number().optional() })),
        u: z.union([
          z.object({ k: z.literal('a'), p: z.string().optional() }),
          z.object({ k: z.literal('b') }),
        ]),
      });
      const out = prepareOf(schema, { strict: true })(
        parsed('{"o":{"x":null},"l":[{"y":null},{"y":1}],"u":{"k":"a","p":null}}'),
      );
      expect(out).to.deep.equal({ o: {}, l: [{}, { y: 1 }], u: { k: 'a' } });
      expect(schema.parse(out)).to.deep.equal({ o: {}, l: [{}, { y: 1 }], u: { k: 'a' } });
    });

    it('leaves nulls alone outside strict mode', () => {
      const schema = z.object({ a: z.string().optional(), d: z.date() });
      const out = prepareOf(schema)(parsed(`{"a":null,"d":"${at}"}`));
      expect(out).to.deep.equal({ a: null, d: new Date(at) });
    });

    it('works for zod 3 schemas', () => {
      const schema = z3.object({
        a: z3.string().optional(),
        n: z3.string().nullish(),
        c: z3.string(),
      });
      const out = prepareOf(schema, { strict: true })(parsed('{"a":null,"n":null,"c":"x"}'));
      expect(out).to.deep.equal({ n: null, c: 'x' });
    });
  });

  describe('safety', () => {
    it('never modifies its input and returns the input itself when nothing changes', () => {
      const schema = z.object({
        o: z.object({ d: z.date() }),
        p: z.object({ s: z.string() }),
        a: z.string().optional(),
      });
      const prepare = prepareOf(schema, { strict: true });
      const input = parsed(`{"o":{"d":"${at}"},"p":{"s":"x"},"a":null}`);
      const snapshot = JSON.stringify(input);
      const out = prepare(input) as Record<string, unknown>;
      expect(JSON.stringify(input)).to.equal(snapshot);
      expect(out.p).to.equal(input.p);
      const untouched = parsed('{"o":{"d":1},"p":{"s":"x"}}');
      expect(prepare(untouched)).to.equal(untouched);
    });

    it('writes a field named __proto__ as an own property and leaves every prototype alone', () => {
      const schema = z.object({ ['__proto__']: z.date().optional(), other: z.date() });
      const prepare = prepareOf(schema, { strict: true });
      const out = prepare(parsed(`{"__proto__":"${at}","other":"${at}"}`)) as Record<
        string,
        unknown
      >;
      expect(Object.getPrototypeOf(out)).to.equal(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).to.deep.equal(new Date(at));
      const absent = prepare(parsed(`{"__proto__":null,"other":"${at}"}`)) as Record<
        string,
        unknown
      >;
      expect(Object.getPrototypeOf(absent)).to.equal(Object.prototype);
      expect(Object.keys(absent)).to.deep.equal(['other']);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('copies an undeclared __proto__ key as a plain key when it copies an object', () => {
      const schema = z.object({ d: z.date() }).catchall(z.unknown());
      const out = prepareOf(schema)(
        parsed(`{"d":"${at}","__proto__":{"polluted":true}}`),
      ) as Record<string, unknown>;
      expect(Object.getPrototypeOf(out)).to.equal(Object.prototype);
      expect(Object.getOwnPropertyNames(out)).to.deep.equal(['d', '__proto__']);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('passes through values of the wrong shape untouched', () => {
      const prepare = prepareOf(z.object({ l: z.array(z.date()), o: z.object({ d: z.date() }) }));
      const odd = { l: 'not an array', o: ['not', 'an', 'object'] };
      expect(prepare(odd)).to.equal(odd);
      expect(prepare(null)).to.equal(null);
    });
  });
});
