/**
 * `tool()` types a function's arguments from a zod schema of any copy of zod: zod 4, `zod/v3`, and
 * the standalone `zod@3` package (installed here as `zod3`), without "type instantiation is
 * excessively deep". Checked by `npm run typecheck` (nothing here runs).
 */
import { expectTypeOf } from 'expect-type';
import { z as z4 } from 'zod';
import { z as v3 } from 'zod/v3';
import { z as zod3 } from 'zod3';
import { tool, type ArgsOf } from '../../index.js';

/** The arguments `tool()` gives a function for `schema` (a type only: nothing here runs). */
declare function argsOf<S>(schema: S): ArgsOf<S>;

interface SearchArgs {
  query: string;
  limit: number;
  labels?: string[] | undefined;
  since?: Date | undefined;
}

const fromZod3 = zod3.object({
  query: zod3.string(),
  limit: zod3.number().int().default(20),
  labels: zod3.array(zod3.string()).optional(),
  since: zod3.date().optional(),
});
expectTypeOf(argsOf(fromZod3)).toEqualTypeOf<SearchArgs>();

tool({
  name: 'search',
  description: 'Search',
  parameters: fromZod3,
  execute(args) {
    expectTypeOf(args).toEqualTypeOf<SearchArgs>();
    return args.query;
  },
});

// The same schema in zod/v3 and zod 4 gives the same arguments.
const fromV3 = v3.object({
  query: v3.string(),
  limit: v3.number().int().default(20),
  labels: v3.array(v3.string()).optional(),
  since: v3.date().optional(),
});
expectTypeOf(argsOf(fromV3)).toEqualTypeOf<SearchArgs>();
const fromZod4 = z4.object({
  query: z4.string(),
  limit: z4.int().default(20),
  labels: z4.array(z4.string()).optional(),
  since: z4.date().optional(),
});
expectTypeOf(argsOf(fromZod4)).toEqualTypeOf<SearchArgs>();

// Transforms: the function gets zod's output, not its input.
const transformed = zod3.object({ n: zod3.string().transform((text) => text.length) });
expectTypeOf(argsOf(transformed)).toEqualTypeOf<{ n: number }>();

// A plain JSON Schema, and no parameters at all.
expectTypeOf<ArgsOf<{ type: 'object' }>>().toEqualTypeOf<{ [key: string]: unknown }>();
expectTypeOf<ArgsOf<undefined>>().toEqualTypeOf<{ [key: string]: unknown }>();
