/**
 * zod 3 schemas as JSON Schema through zod-to-json-schema, set up so that the canonical form
 * matches what zod 4 gives for the same schema.
 *
 * @module
 */
import type { ZodSchema, ZodTypeDef } from 'zod/v3';
import { ignoreOverride, zodToJsonSchema } from 'zod-to-json-schema';
import type { JsonSchema } from '../open-responses.js';
import { isOptional, type V3Def } from './v3.js';

/**
 * The JSON Schema zod-to-json-schema generates for the input side, inlined (recursion is refused
 * before this runs), with `required` by the rule of {@link isOptional} and `z.literal(null)` as
 * the null type.
 */
export function v3JsonSchema(schema: unknown): JsonSchema {
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
