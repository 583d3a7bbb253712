/**
 * zod 3 schemas as JSON Schema through zod-to-json-schema, set up so that the canonical form
 * matches what zod 4 gives for the same schema.
 *
 * @module
 */
import type { ZodSchema, ZodTypeDef } from 'zod/v3';
import type * as ZodToJsonSchema from 'zod-to-json-schema';
import type { JsonSchema } from '../open-responses.js';
import { requiredModule } from '../optional-module.js';
import { isOptional, type V3Def } from './v3.js';

type Converter = Pick<typeof ZodToJsonSchema, 'ignoreOverride' | 'zodToJsonSchema'>;

/**
 * zod-to-json-schema, as the browser entry's `registerZod3` hands it over (imported), or else
 * loaded at the first zod 3 schema converted (Node): a process whose tools use zod 4 never loads
 * it, or zod 3.
 */
let library: Converter | undefined;

/** Makes `converter` (zod-to-json-schema, imported) the one zod 3 schemas convert with. */
export function provideZodToJsonSchema(converter: Converter): void {
  library ??= converter;
}

/**
 * The JSON Schema zod-to-json-schema generates for the input side, inlined (recursion is refused
 * before this runs), with `required` by the rule of {@link isOptional} and `z.literal(null)` as
 * the null type.
 */
export function v3JsonSchema(schema: unknown): JsonSchema {
  const { ignoreOverride, zodToJsonSchema } = (library ??=
    requiredModule<Converter>('zod-to-json-schema'));
  return zodToJsonSchema(schema as ZodSchema, {
    target: 'jsonSchema7',
    $refStrategy: 'none',
    removeAdditionalStrategy: 'strict',
    effectStrategy: 'input',
    pipeStrategy: 'input',
    dateStrategy: 'format:date-time',
    emailStrategy: 'format:email',
    override: (def: ZodTypeDef) => {
      const d = def as V3Def;
      if (d.typeName !== 'ZodLiteral' || d.value !== null) return ignoreOverride;
      return d.description === undefined
        ? { type: 'null' }
        : { type: 'null', description: d.description };
    },
    postProcess: (json, def: ZodTypeDef) => {
      const d = def as V3Def;
      if (d.typeName !== 'ZodObject' || json === undefined || !('properties' in json)) return json;
      const shape = (d.shape as () => Readonly<Record<string, unknown>>)();
      const required = Object.keys(json.properties).filter((key) => !isOptional(shape[key]));
      return { ...json, required };
    },
  }) as JsonSchema;
}
