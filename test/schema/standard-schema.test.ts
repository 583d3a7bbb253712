/**
 * `tool()` with Standard Schema libraries (valibot, ArkType): the model reads the canonical schema a
 * zod tool of the same shape gives, arguments are checked with the same one-line messages, then
 * the library's own `validate` runs what JSON Schema cannot say (refinements, transforms).
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { expect } from 'chai';
import { expectTypeOf } from 'expect-type';
import * as v from 'valibot';
import { z } from 'zod';
import { batchResults, registerStandardSchema, SchemaError, tool, type Tool } from '../../index.js';
import { setStandardCompiler } from '../../lib/schema/standard-support.js';

const run = async (t: Tool, args: string): Promise<string> => {
  const [settled] = await batchResults([{ tool: t, call: { id: 'c', args } }]);
  return settled!.error?.message ?? String(settled!.result!.output);
};

const echo = (args: unknown) => JSON.stringify(args);

/** The booking the valibot and ArkType schemas below describe, in zod. */
const zodShape = z.object({
  room: z.string(),
  nights: z.number().int().min(1),
  note: z.string().optional(),
  tags: z.array(z.enum(['quiet', 'view'])),
});

const zodTool = tool({
  name: 'book',
  description: 'Books a room.',
  parameters: zodShape,
  execute: echo,
});

const valibotShape = v.object({
  room: v.string(),
  nights: v.pipe(v.number(), v.integer(), v.minValue(1)),
  note: v.optional(v.string()),
  tags: v.array(v.picklist(['quiet', 'view'])),
});

describe('tool() with a Standard Schema', () => {
  it('serves a valibot schema as the canonical schema of the same zod schema, bare or wrapped', () => {
    const bare = tool({ name: 'book', description: '', parameters: valibotShape, execute: echo });
    const wrapped = tool({
      name: 'book',
      description: '',
      parameters: toStandardJsonSchema(valibotShape),
      execute: echo,
    });
    expect(bare.parameters).to.deep.equal(zodTool.parameters);
    expect(JSON.stringify(wrapped.parameters)).to.equal(JSON.stringify(zodTool.parameters));
  });

  it('serves an ArkType type through its own JSON Schema, made canonical', () => {
    const ark = tool({
      name: 'book',
      description: '',
      parameters: type({
        room: 'string',
        nights: 'number.integer >= 1',
        'note?': 'string',
        tags: "('quiet' | 'view')[]",
      }),
      execute: echo,
    });
    // ArkType lists the required properties first; each is the zod tool's, in canonical form.
    const props = ark.parameters!.properties as Record<string, unknown>;
    expect(props).to.deep.equal(zodTool.parameters!.properties as Record<string, unknown>);
    expect(ark.parameters!.required).to.deep.equal(['nights', 'room', 'tags']);
    expect(ark.parameters).not.to.have.property('$schema');
  });

  it('checks arguments against the schema the model read, with zod’s one-line messages', async () => {
    const valibot = tool({
      name: 'book',
      description: '',
      parameters: valibotShape,
      execute: echo,
    });
    const ark = tool({
      name: 'book',
      description: '',
      parameters: type({ room: 'string', nights: 'number', tags: 'string[]' }),
      execute: echo,
    });
    const bad = '{"room":7,"nights":2,"tags":[]}';
    const message = await run(zodTool, bad);
    expect(message).to.equal('invalid arguments: room: expected string, got 7');
    expect(await run(valibot, bad)).to.equal(message);
    expect(await run(ark, bad)).to.equal(message);
    expect(await run(valibot, '{"room":"a","nights":0,"tags":[]}')).to.equal(
      await run(zodTool, '{"room":"a","nights":0,"tags":[]}'),
    );
  });

  it('runs the library’s validation after: its refinements fail in one line with their path', async () => {
    const t = tool({
      name: 'pick',
      description: '',
      parameters: v.object({
        dates: v.array(
          v.object({
            from: v.string(),
            to: v.pipe(
              v.string(),
              v.check((s) => s > 'b', 'to must come after from\nplease'),
            ),
          }),
        ),
      }),
      execute: echo,
    });
    expect(await run(t, '{"dates":[{"from":"a","to":"c"},{"from":"a","to":"a"}]}')).to.equal(
      'invalid arguments: dates[1].to: to must come after from please',
    );
    const ark = tool({
      name: 'even',
      description: '',
      parameters: type({ n: 'number' }).narrow((o, ctx) => o.n % 2 === 0 || ctx.mustBe('even')),
      execute: echo,
    });
    expect(await run(ark, '{"n":3}')).to.match(/^invalid arguments: must be even/);
    expect(await run(ark, '{"n":4}')).to.equal('{"n":4}');
  });

  it('hands the function the library’s output: transforms and async checks included', async () => {
    const t = tool({
      name: 'shout',
      description: '',
      parameters: v.objectAsync({
        word: v.pipeAsync(
          v.string(),
          v.checkAsync(async (s) => s !== 'no', 'not that word'),
          v.transform((s) => s.toUpperCase()),
        ),
      }),
      execute: ({ word }) => {
        expectTypeOf(word).toEqualTypeOf<string>();
        return word;
      },
    });
    expect(await run(t, '{"word":"hi"}')).to.equal('HI');
    expect(await run(t, '{"word":"no"}')).to.equal('invalid arguments: word: not that word');
  });

  it('types the function’s arguments from the schema', () => {
    tool({
      name: 't',
      description: '',
      parameters: type({ a: 'number', 'b?': 'string' }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b?: string }>();
        return '';
      },
    });
    tool({
      name: 't',
      description: '',
      parameters: v.object({ a: v.number() }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number }>();
        return '';
      },
    });
  });

  it('in strict mode: every property required, optional ones nullable, a null sent made absent', async () => {
    const t = tool({
      name: 'book',
      description: '',
      strict: true,
      parameters: valibotShape,
      execute: echo,
    });
    const strictZod = tool({
      name: 'book',
      description: '',
      strict: true,
      parameters: zodShape,
      execute: echo,
    });
    expect(t.parameters).to.deep.equal(strictZod.parameters);
    expect(await run(t, '{"room":"a","nights":1,"note":null,"tags":[]}')).to.equal(
      '{"room":"a","nights":1,"tags":[]}',
    );
  });

  it('refuses, naming the tool, a schema its library cannot give a JSON Schema for, or not an object', () => {
    const handMade = {
      '~standard': {
        version: 1 as const,
        vendor: 'mine',
        validate: (value: unknown) => ({ value }),
      },
    };
    expect(() =>
      tool({ name: 'x', description: '', parameters: handMade, execute: echo }),
    ).to.throw(
      SchemaError,
      'tool "x": schema: the mine schema gives no JSON Schema (a Standard JSON Schema converter, ~standard.jsonSchema)',
    );
    expect(() =>
      tool({ name: 'y', description: '', parameters: type('string') as never, execute: echo }),
    ).to.throw(SchemaError, 'tool "y": schema: tool parameters must be an object schema');
  });

  it('in a bundle that has not registered Standard Schema support, says what to call', () => {
    setStandardCompiler(undefined as never);
    try {
      expect(() =>
        tool({ name: 'b', description: '', parameters: valibotShape, execute: echo }),
      ).to.throw(
        SchemaError,
        `tool "b": schema: a valibot schema needs Standard Schema support: call registerStandardSchema() from 'agenttool' first`,
      );
    } finally {
      registerStandardSchema();
    }
    expect(
      tool({ name: 'b', description: '', parameters: valibotShape, execute: echo }).parameters,
    ).to.deep.equal(zodTool.parameters);
  });
});
