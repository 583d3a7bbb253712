/**
 * Type tests, checked by `npm run typecheck` (part of `npm test`): what `tool()` infers for the
 * arguments its function receives.
 */
import { expectTypeOf } from 'expect-type';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { tool, type ArgsOf, type Tool } from '../../index.js';

// zod 4: zod's output type, defaults applied and dates decoded.
const v4 = z.object({
  query: z.string(),
  limit: z.int().default(20),
  since: z.date().optional(),
  state: z.enum(['open', 'closed']),
});
expectTypeOf<ArgsOf<typeof v4>>().toEqualTypeOf<{
  query: string;
  limit: number;
  since?: Date | undefined;
  state: 'open' | 'closed';
}>();
tool({
  name: 'v4',
  description: 'zod 4',
  parameters: v4,
  execute(args) {
    expectTypeOf(args.query).toEqualTypeOf<string>();
    expectTypeOf(args.limit).toEqualTypeOf<number>();
    expectTypeOf(args.since).toEqualTypeOf<Date | undefined>();
    expectTypeOf(args.state).toEqualTypeOf<'open' | 'closed'>();
    // @ts-expect-error: not a parameter
    void args.other;
    return '';
  },
});

// zod 3 (`zod/v3`): its output type too.
const v3 = z3.object({ path: z3.string(), recursive: z3.boolean().default(false) });
expectTypeOf<ArgsOf<typeof v3>>().toEqualTypeOf<{ path: string; recursive: boolean }>();
tool({
  name: 'v3',
  description: 'zod 3',
  parameters: v3,
  execute(args) {
    expectTypeOf(args).toEqualTypeOf<{ path: string; recursive: boolean }>();
    return '';
  },
});

// A plain JSON Schema: an object of unknown values, read with checks.
tool({
  name: 'json',
  description: 'JSON Schema',
  parameters: { type: 'object', properties: { n: { type: 'integer' } } },
  execute(args) {
    expectTypeOf(args).toEqualTypeOf<{ [key: string]: unknown }>();
    expectTypeOf(args['n']).toEqualTypeOf<unknown>();
    return '';
  },
});

// No parameters: the same plain object.
const none = tool({
  name: 'none',
  description: 'no parameters',
  execute(args, context) {
    expectTypeOf(args).toEqualTypeOf<{ [key: string]: unknown }>();
    expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
    return 1;
  },
});
expectTypeOf(none).toEqualTypeOf<Tool>();

// confined sees the same arguments as execute.
tool({
  name: 'confined',
  description: 'confined',
  parameters: v4,
  execute: () => '',
  confined(args) {
    expectTypeOf(args.query).toEqualTypeOf<string>();
    return { confined: true, by: 'test' };
  },
});

// A resource named from the arguments sees them as `execute` does: zod's output type.
tool({
  name: 'write',
  description: 'writes a file',
  parameters: z.object({ path: z.string(), append: z.boolean().default(false) }),
  resource: (args) => {
    expectTypeOf(args.path).toEqualTypeOf<string>();
    expectTypeOf(args.append).toEqualTypeOf<boolean>();
    // @ts-expect-error: not a parameter
    void args.other;
    return `file:${args.path}`;
  },
  execute: (args) => args.path,
});

// A resource function must name a string.
tool({
  name: 'write',
  description: 'writes a file',
  parameters: z.object({ path: z.string() }),
  // @ts-expect-error: a resource is a string
  resource: (args) => args.path.length,
  execute: () => '',
});

// A tool's arguments are an object: a schema of anything else is refused when it is written,
// not only when the tool is made.
// @ts-expect-error: a string schema is not an object schema
tool({ name: 'n', description: '', parameters: z.string(), execute: () => '' });
// @ts-expect-error: nor is an array schema
tool({ name: 'n', description: '', parameters: z.array(z.string()), execute: () => '' });
tool({ name: 'n', description: '', parameters: z.object({ a: z.string() }), execute: () => '' });
tool({ name: 'n', description: '', parameters: { type: 'object' }, execute: () => '' });
