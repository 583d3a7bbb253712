import { expect } from 'chai';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import {
  compileZodSchema,
  isZodSchema,
  schemaOf,
  type AnyZodSchema,
  type SchemaOptions,
} from '../../lib/schema/schema.js';
import { SchemaError } from '../../lib/errors.js';

/** The schema's exact bytes, as a provider would see them. */
const text = (schema: AnyZodSchema, options?: SchemaOptions): string =>
  JSON.stringify(schemaOf(schema, options));

/** The text of the one property `field` inside a root object. */
const field = (schema: AnyZodSchema, options?: SchemaOptions): string => {
  const root = schemaOf(z.object({ f: schema as z.ZodType }), options);
  return JSON.stringify((root.properties as Record<string, unknown>).f);
};

/** The message of the SchemaError that compiling `schema` throws. */
function refusal(schema: AnyZodSchema, options: SchemaOptions = { tool: 'calc' }): string {
  try {
    compileZodSchema(schema, options);
  } catch (error) {
    expect(error).to.be.instanceOf(SchemaError);
    expect((error as SchemaError).code).to.equal('invalid_schema');
    return (error as Error).message;
  }
  expect.fail('expected a SchemaError');
}

describe('schemaOf (zod 4)', () => {
  describe('the root', () => {
    it('is type, properties and required, properties in declaration order', () => {
      const schema = z.object({ path: z.string(), mode: z.number(), all: z.boolean() });
      expect(text(schema)).to.equal(
        '{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"number"},"all":{"type":"boolean"}},"required":["path","mode","all"]}',
      );
    });

    it('for no arguments is an empty object with an empty required list', () => {
      expect(text(z.object({}))).to.equal('{"type":"object","properties":{},"required":[]}');
      expect(text(z.object({}), { strict: true })).to.equal(
        '{"type":"object","properties":{},"required":[],"additionalProperties":false}',
      );
    });

    it('carries no $schema, $defs, ~standard or other generator noise', () => {
      const schema = schemaOf(z.object({ a: z.string().meta({ id: 'A', description: 'an a' }) }));
      expect(Object.getOwnPropertyNames(schema)).to.deep.equal(['type', 'properties', 'required']);
      expect(JSON.stringify(schema)).to.equal(
        '{"type":"object","properties":{"a":{"type":"string","description":"an a"}},"required":["a"]}',
      );
    });

    it('keeps a description written on the root object', () => {
      expect(text(z.object({ a: z.string() }).describe('args'))).to.equal(
        '{"type":"object","description":"args","properties":{"a":{"type":"string"}},"required":["a"]}',
      );
    });

    it('describes the input of a refined or transformed root object', () => {
      const expected = '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}';
      expect(text(z.object({ a: z.string() }).refine(() => true))).to.equal(expected);
      expect(text(z.object({ a: z.string() }).transform((o) => o.a))).to.equal(expected);
    });

    it('is refused when it is not an object schema, naming the tool', () => {
      const message = 'tool "calc": schema: tool parameters must be an object schema';
      expect(refusal(z.string())).to.equal(message);
      expect(refusal(z.array(z.object({})))).to.equal(message);
      expect(refusal(z.record(z.string(), z.number()))).to.equal(message);
      expect(refusal(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]))).to.equal(
        message,
      );
      expect(refusal(z.object({}).nullable())).to.equal(message);
    });

    it('is refused when it is not a zod schema at all', () => {
      expect(refusal({ type: 'object' } as unknown as AnyZodSchema)).to.equal(
        'tool "calc": schema: not a zod schema',
      );
    });
  });

  describe('members', () => {
    it('come in the order type, description, format, enum, constraints, default, properties, required, items', () => {
      expect(field(z.string().min(1).max(5).regex(/^a/).describe('d').default('ab'))).to.equal(
        '{"type":"string","description":"d","minLength":1,"maxLength":5,"pattern":"^a","default":"ab"}',
      );
      expect(field(z.number().multipleOf(3).max(9).min(0).describe('n'))).to.equal(
        '{"type":"number","description":"n","minimum":0,"maximum":9,"multipleOf":3}',
      );
      expect(field(z.enum(['low', 'high']).describe('level'))).to.equal(
        '{"type":"string","description":"level","enum":["low","high"]}',
      );
      expect(field(z.array(z.string()).max(3).min(1).describe('tags'))).to.equal(
        '{"type":"array","description":"tags","minItems":1,"maxItems":3,"items":{"type":"string"}}',
      );
      expect(field(z.object({ x: z.number() }).describe('point'))).to.equal(
        '{"type":"object","description":"point","properties":{"x":{"type":"number"}},"required":["x"]}',
      );
      expect(field(z.email().describe('to'))).to.equal(
        '{"type":"string","description":"to","format":"email"}',
      );
    });

    it('take descriptions from .describe() and .meta(), and nothing else from meta', () => {
      expect(field(z.string().describe('a path'))).to.equal(
        '{"type":"string","description":"a path"}',
      );
      expect(
        field(z.string().meta({ description: 'm', title: 'T', examples: ['x'], custom: 1 })),
      ).to.equal('{"type":"string","description":"m"}');
    });

    it('inline a schema registered with an id instead of referencing it', () => {
      const id = z.string().meta({ id: 'Ident' });
      expect(text(z.object({ a: id, b: id }))).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}',
      );
    });
  });

  describe('numbers', () => {
    it('are integers without the implicit safe-integer bounds', () => {
      expect(field(z.int())).to.equal('{"type":"integer"}');
      expect(field(z.number().int())).to.equal('{"type":"integer"}');
      expect(field(z.int().positive())).to.equal('{"type":"integer","exclusiveMinimum":0}');
      expect(field(z.int().min(0).max(10))).to.equal('{"type":"integer","minimum":0,"maximum":10}');
    });

    it('keep a bound the author wrote even when it equals an implicit one', () => {
      expect(field(z.int().max(Number.MAX_SAFE_INTEGER))).to.equal(
        '{"type":"integer","maximum":9007199254740991}',
      );
    });

    it('keep the bounds of a sized format the author chose and drop those of float64', () => {
      expect(field(z.int32())).to.equal(
        '{"type":"integer","minimum":-2147483648,"maximum":2147483647}',
      );
      expect(field(z.uint32())).to.equal('{"type":"integer","minimum":0,"maximum":4294967295}');
      expect(field(z.float64())).to.equal('{"type":"number"}');
    });

    it('write exclusive bounds and multiples as written', () => {
      expect(field(z.number().gt(1).lt(5).multipleOf(0.5))).to.equal(
        '{"type":"number","exclusiveMinimum":1,"exclusiveMaximum":5,"multipleOf":0.5}',
      );
      expect(field(z.number().positive())).to.equal('{"type":"number","exclusiveMinimum":0}');
    });
  });

  describe('strings', () => {
    it('use a standard format without the regex zod checks it with', () => {
      expect(field(z.email())).to.equal('{"type":"string","format":"email"}');
      expect(field(z.string().email())).to.equal('{"type":"string","format":"email"}');
      expect(field(z.url())).to.equal('{"type":"string","format":"uri"}');
      expect(field(z.uuid())).to.equal('{"type":"string","format":"uuid"}');
      expect(field(z.ipv4())).to.equal('{"type":"string","format":"ipv4"}');
      expect(field(z.iso.date())).to.equal('{"type":"string","format":"date"}');
    });

    it('keep a regex the author wrote beside a format', () => {
      expect(field(z.email().regex(/x/))).to.equal(
        '{"type":"string","format":"email","pattern":"x"}',
      );
      expect(field(z.string().regex(/x/).regex(/y/))).to.equal(
        '{"type":"string","allOf":[{"pattern":"x"},{"pattern":"y"}]}',
      );
    });

    it('say a format JSON Schema does not know by its regex alone', () => {
      expect(field(z.cuid())).to.equal('{"type":"string","pattern":"^[cC][0-9a-z]{6,}$"}');
      expect(field(z.string().startsWith('ab'))).to.equal('{"type":"string","pattern":"^ab.*"}');
      expect(field(z.string().lowercase())).to.equal('{"type":"string","pattern":"^[^A-Z]*$"}');
      expect(field(z.iso.time())).to.equal(
        '{"type":"string","pattern":"^(?:[01]\\\\d|2[0-3]):[0-5]\\\\d(?::[0-5]\\\\d(?:\\\\.\\\\d+)?)?$"}',
      );
    });
  });

  describe('dates', () => {
    it('are date-time strings without a regex', () => {
      const dateTime = '{"type":"string","format":"date-time"}';
      expect(field(z.date())).to.equal(dateTime);
      expect(field(z.coerce.date())).to.equal(dateTime);
      expect(field(z.iso.datetime())).to.equal(dateTime);
      expect(field(z.iso.datetime({ offset: true }))).to.equal(dateTime);
    });

    it('write a default Date as its ISO text', () => {
      expect(field(z.date().default(new Date(0)))).to.equal(
        '{"type":"string","format":"date-time","default":"1970-01-01T00:00:00.000Z"}',
      );
    });
  });

  describe('enums, literals and unions', () => {
    it('write enums and literals with their type', () => {
      expect(field(z.enum(['a', 'b']))).to.equal('{"type":"string","enum":["a","b"]}');
      expect(field(z.enum({ A: 'a', B: 'b' }))).to.equal('{"type":"string","enum":["a","b"]}');
      expect(field(z.literal('x'))).to.equal('{"type":"string","const":"x"}');
      expect(field(z.literal(5))).to.equal('{"type":"number","const":5}');
      expect(field(z.literal(['x', 1]))).to.equal('{"type":["string","number"],"enum":["x",1]}');
      expect(field(z.literal(null))).to.equal('{"type":"null"}');
    });

    it('merge a union of literals into one enum and a union of bare types into one type list', () => {
      expect(field(z.union([z.literal('a'), z.literal('b')]))).to.equal(
        '{"type":"string","enum":["a","b"]}',
      );
      expect(field(z.union([z.string(), z.number()]))).to.equal('{"type":["string","number"]}');
    });

    it('write other unions as anyOf, discriminated ones too, and z.xor as oneOf', () => {
      expect(field(z.union([z.string().min(1), z.number()]))).to.equal(
        '{"anyOf":[{"type":"string","minLength":1},{"type":"number"}]}',
      );
      const du = z.discriminatedUnion('k', [
        z.object({ k: z.literal('a') }),
        z.object({ k: z.literal('b'), n: z.number() }),
      ]);
      expect(field(du)).to.equal(
        '{"anyOf":[{"type":"object","properties":{"k":{"type":"string","const":"a"}},"required":["k"]},' +
          '{"type":"object","properties":{"k":{"type":"string","const":"b"},"n":{"type":"number"}},"required":["k","n"]}]}',
      );
      expect(field(z.xor([z.string(), z.number()]))).to.equal(
        '{"oneOf":[{"type":"string"},{"type":"number"}]}',
      );
    });
  });

  describe('nullable', () => {
    it('adds null to the type of a single-typed schema, last, and to its enum', () => {
      expect(field(z.string().nullable())).to.equal('{"type":["string","null"]}');
      expect(field(z.string().min(1).nullable())).to.equal(
        '{"type":["string","null"],"minLength":1}',
      );
      expect(field(z.int().nullable())).to.equal('{"type":["integer","null"]}');
      expect(field(z.enum(['a', 'b']).nullable())).to.equal(
        '{"type":["string","null"],"enum":["a","b",null]}',
      );
      expect(field(z.literal('x').nullable())).to.equal(
        '{"type":["string","null"],"enum":["x",null]}',
      );
      expect(field(z.date().nullable())).to.equal(
        '{"type":["string","null"],"format":"date-time"}',
      );
      expect(field(z.object({ x: z.number() }).nullable())).to.equal(
        '{"type":["object","null"],"properties":{"x":{"type":"number"}},"required":["x"]}',
      );
      expect(field(z.union([z.string(), z.number()]).nullable())).to.equal(
        '{"type":["string","number","null"]}',
      );
    });

    it('is an anyOf with the null type last when the inner schema is a union', () => {
      expect(
        field(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]).nullable()),
      ).to.equal(
        '{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},' +
          '{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]},{"type":"null"}]}',
      );
    });

    it('keeps the description wherever it was written', () => {
      expect(field(z.string().describe('d').nullable())).to.equal(
        '{"type":["string","null"],"description":"d"}',
      );
      expect(field(z.string().nullable().describe('d'))).to.equal(
        '{"type":["string","null"],"description":"d"}',
      );
    });
  });

  describe('objects', () => {
    it('leave optional and defaulted properties out of required, and write the default', () => {
      const schema = z.object({
        a: z.string(),
        b: z.string().optional(),
        c: z.number().default(1),
        d: z.string().nullish(),
      });
      expect(text(schema)).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"number","default":1},' +
          '"d":{"type":["string","null"]}},"required":["a"]}',
      );
    });

    it('write additionalProperties only for a strict object or a catchall', () => {
      expect(field(z.object({ a: z.string() }))).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}',
      );
      expect(field(z.strictObject({ a: z.string() }))).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}',
      );
      expect(field(z.looseObject({ a: z.string() }))).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}',
      );
      expect(field(z.object({ a: z.string() }).catchall(z.number()))).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":{"type":"number"}}',
      );
    });

    it('merge an intersection of objects into one object', () => {
      expect(
        field(z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() }))),
      ).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a","b"]}',
      );
    });

    it('keep a property named __proto__ as an ordinary property', () => {
      const schema = schemaOf(z.object({ ['__proto__']: z.string() }));
      expect(Object.getPrototypeOf(schema.properties)).to.equal(Object.prototype);
      expect(JSON.stringify(schema)).to.equal(
        '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
      );
    });
  });

  describe('arrays, tuples, records and any', () => {
    it('write arrays with their bounds and items', () => {
      expect(field(z.array(z.number()).min(1).max(3))).to.equal(
        '{"type":"array","minItems":1,"maxItems":3,"items":{"type":"number"}}',
      );
      expect(field(z.array(z.any()))).to.equal('{"type":"array"}');
    });

    it('write tuples with prefixItems, and their rest as items', () => {
      expect(field(z.tuple([z.string(), z.number()]))).to.equal(
        '{"type":"array","minItems":2,"maxItems":2,"prefixItems":[{"type":"string"},{"type":"number"}]}',
      );
      expect(field(z.tuple([z.string()], z.number()))).to.equal(
        '{"type":"array","minItems":1,"prefixItems":[{"type":"string"}],"items":{"type":"number"}}',
      );
    });

    it('write records as additionalProperties, with a key pattern when there is one', () => {
      expect(field(z.record(z.string(), z.number()))).to.equal(
        '{"type":"object","additionalProperties":{"type":"number"}}',
      );
      expect(field(z.record(z.string().regex(/^x/), z.number()))).to.equal(
        '{"type":"object","propertyNames":{"type":"string","pattern":"^x"},"additionalProperties":{"type":"number"}}',
      );
    });

    it('write any and unknown as the empty schema', () => {
      expect(field(z.any())).to.equal('{}');
      expect(field(z.unknown())).to.equal('{}');
    });
  });

  describe('wrappers', () => {
    it('describe the input side of transforms, preprocess and pipes', () => {
      expect(field(z.string().transform((s) => s.length))).to.equal('{"type":"string"}');
      expect(field(z.preprocess((v) => v, z.number()))).to.equal('{"type":"number"}');
      expect(field(z.string().pipe(z.coerce.number()))).to.equal('{"type":"string"}');
      expect(field(z.string().refine((s) => s !== ''))).to.equal('{"type":"string"}');
    });

    it('add nothing for readonly, brand or a non-recursive lazy', () => {
      expect(field(z.object({ a: z.string() }).readonly())).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}',
      );
      expect(field(z.string().brand('Id'))).to.equal('{"type":"string"}');
      expect(field(z.lazy(() => z.string()))).to.equal('{"type":"string"}');
    });

    it('do not pass a catch value off as a default, nor make the property optional', () => {
      expect(
        text(z.object({ a: z.string().catch('x'), b: z.string().default('d').catch('y') })),
      ).to.equal(
        '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","default":"d"}},"required":["a"]}',
      );
    });
  });

  describe('refusals', () => {
    const cases: [string, z.ZodType, string][] = [
      ['bigint', z.bigint(), 'a bigint'],
      ['symbol', z.symbol(), 'a symbol'],
      ['undefined', z.undefined(), 'undefined'],
      ['void', z.void(), 'void'],
      ['NaN', z.nan(), 'NaN'],
      ['function', z.function() as unknown as z.ZodType, 'a function'],
      ['Map', z.map(z.string(), z.string()), 'a Map'],
      ['Set', z.set(z.string()), 'a Set'],
      ['promise', z.promise(z.string()), 'a promise'],
      ['custom', z.custom<string>(), 'a custom type'],
      ['never', z.never(), 'never'],
      ['file', z.file(), 'a file'],
      ['int64 (a bigint)', z.int64(), 'a bigint'],
    ];
    for (const [name, schema, what] of cases) {
      it(`refuses ${name} with the tool and the path named`, () => {
        expect(refusal(z.object({ outer: z.object({ inner: schema }) }))).to.equal(
          `tool "calc": schema: outer.inner: ${what} cannot be represented in JSON Schema`,
        );
      });
    }

    it('names array items and wrappers on the path', () => {
      expect(refusal(z.object({ list: z.array(z.bigint().optional()) }))).to.equal(
        'tool "calc": schema: list[]: a bigint cannot be represented in JSON Schema',
      );
    });

    it('refuses a recursive schema, by lazy or by getter', () => {
      type Node = { next?: Node };
      const lazy: z.ZodType<Node> = z.lazy(() => z.object({ next: lazy.optional() }));
      expect(refusal(z.object({ head: lazy }))).to.equal(
        'tool "calc": schema: head.next: recursive schema',
      );
      const Category = z.object({
        name: z.string(),
        get children(): z.ZodArray<typeof Category> {
          return z.array(Category);
        },
      });
      expect(refusal(Category)).to.equal('tool "calc": schema: children[]: recursive schema');
    });

    it('accepts a schema reused in several places', () => {
      const point = z.object({ x: z.number() });
      expect(text(z.object({ from: point, to: point }))).to.equal(
        '{"type":"object","properties":{"from":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]},' +
          '"to":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"required":["from","to"]}',
      );
    });

    it('says "schema:" alone when no tool is named', () => {
      expect(refusal(z.object({ n: z.bigint() }), {})).to.equal(
        'schema: n: a bigint cannot be represented in JSON Schema',
      );
    });
  });

  describe('byte stability', () => {
    it('gives the same bytes for the same schema, and for an equal schema built again', () => {
      const build = () =>
        z.object({
          q: z.string().describe('query'),
          n: z.int().min(1).optional(),
          at: z.date().nullable(),
          kind: z.enum(['a', 'b']).default('a'),
        });
      const schema = build();
      expect(text(schema)).to.equal(text(schema));
      expect(text(build())).to.equal(text(schema));
      expect(text(build(), { strict: true })).to.equal(text(schema, { strict: true }));
    });
  });
});

describe('schemaOf in strict mode', () => {
  it('requires every property, makes optional ones nullable and drops defaults', () => {
    const schema = z.object({
      a: z.string(),
      b: z.int().optional(),
      c: z.boolean().default(true),
      d: z.string().nullish(),
    });
    expect(text(schema, { strict: true })).to.equal(
      '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"c":{"type":["boolean","null"]},' +
        '"d":{"type":["string","null"]}},"required":["a","b","c","d"],"additionalProperties":false}',
    );
  });

  it('closes every object, nested, in arrays and in union branches', () => {
    const schema = z.object({
      o: z.object({ x: z.number() }),
      l: z.array(z.object({ y: z.number() })),
      u: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
      loose: z.looseObject({ z: z.string() }),
    });
    expect(text(schema, { strict: true })).to.equal(
      '{"type":"object","properties":{' +
        '"o":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false},' +
        '"l":{"type":"array","items":{"type":"object","properties":{"y":{"type":"number"}},"required":["y"],"additionalProperties":false}},' +
        '"u":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},' +
        '{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false}]},' +
        '"loose":{"type":"object","properties":{"z":{"type":"string"}},"required":["z"],"additionalProperties":false}},' +
        '"required":["o","l","u","loose"],"additionalProperties":false}',
    );
  });

  it('makes an optional enum, literal, object and union nullable the canonical way', () => {
    expect(field(z.enum(['a', 'b']).optional(), { strict: true })).to.equal(
      '{"type":["string","null"],"enum":["a","b",null]}',
    );
    expect(field(z.literal('x').optional(), { strict: true })).to.equal(
      '{"type":["string","null"],"enum":["x",null]}',
    );
    expect(
      field(z.object({ x: z.string().optional() }).optional().describe('o'), { strict: true }),
    ).to.equal(
      '{"type":["object","null"],"description":"o","properties":{"x":{"type":["string","null"]}},"required":["x"],"additionalProperties":false}',
    );
    expect(
      field(
        z
          .union([z.string().min(1), z.number()])
          .optional()
          .describe('u'),
        { strict: true },
      ),
    ).to.equal(
      '{"description":"u","anyOf":[{"type":"string","minLength":1},{"type":"number"},{"type":"null"}]}',
    );
    expect(field(z.any().optional(), { strict: true })).to.equal('{}');
  });

  it('merges an intersection of objects', () => {
    expect(
      field(z.intersection(z.object({ a: z.string() }), z.object({ b: z.number().optional() })), {
        strict: true,
      }),
    ).to.equal(
      '{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["number","null"]}},"required":["a","b"],"additionalProperties":false}',
    );
  });

  it('refuses records and catchall schemas, naming the tool and the path', () => {
    expect(
      refusal(z.object({ tags: z.record(z.string(), z.string()) }), { strict: true, tool: 'calc' }),
    ).to.equal('tool "calc": schema: tags: a record cannot be expressed in strict mode');
    expect(
      refusal(z.object({ o: z.object({ a: z.string() }).catchall(z.number()) }), {
        strict: true,
        tool: 'calc',
      }),
    ).to.equal('tool "calc": schema: o: a catchall schema cannot be expressed in strict mode');
  });
});

describe('isZodSchema', () => {
  it('recognises zod 4 and zod 3 schemas and nothing else', () => {
    expect(isZodSchema(z.object({}))).to.equal(true);
    expect(isZodSchema(z.string())).to.equal(true);
    expect(isZodSchema(z3.object({}))).to.equal(true);
    expect(isZodSchema(z3.string())).to.equal(true);
    expect(isZodSchema({ type: 'object', properties: {} })).to.equal(false);
    expect(isZodSchema({ _def: {} })).to.equal(false);
    expect(isZodSchema({ _zod: 1 })).to.equal(false);
    expect(isZodSchema(null)).to.equal(false);
    expect(isZodSchema('z.string()')).to.equal(false);
  });
});
