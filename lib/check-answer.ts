/**
 * The one check of an answer to a tool's question, shared by everything that takes one: the
 * engine's `context.elicit` (an elicitor's answer), the web front (a person's POSTed form) and
 * whatever else shows a question. Accepted content must fit the question's flat schema: every
 * required field there, each value of its field's type, within its choices and bounds, no field the
 * schema lacks. It answers with one line saying what is wrong, naming the field, or undefined.
 *
 * @module
 */
import type { ElicitField, ElicitSchema } from './contract.js';
import { elicitChoices, usableBounds } from './elicit-choices.js';

type Value = string | number | boolean | string[];

function checkField(name: string, field: ElicitField, value: unknown): string | undefined {
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') return `${name}: expected text`;
      const choices = elicitChoices(field)?.map((choice) => choice.value);
      if (choices !== undefined && !choices.includes(value))
        return `${name}: expected one of ${choices.map((v) => JSON.stringify(v)).join(', ')}`;
      if (field.minLength !== undefined && value.length < field.minLength)
        return `${name}: at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength)
        return `${name}: at most ${field.maxLength} characters`;
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${name}: expected a number`;
      if (field.type === 'integer' && !Number.isInteger(value))
        return `${name}: expected a whole number`;
      if (field.minimum !== undefined && value < field.minimum)
        return `${name}: at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum)
        return `${name}: at most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name}: expected true or false`;
    case 'array': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
        return `${name}: expected a list of choices`;
      const choices = elicitChoices(field)?.map((choice) => choice.value);
      const unknown = choices && value.find((v) => !choices.includes(v as string));
      if (unknown !== undefined) return `${name}: ${JSON.stringify(unknown)} is not a choice`;
      if (field.minItems !== undefined && value.length < field.minItems)
        return `${name}: choose at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `${name}: choose at most ${field.maxItems}`;
      return undefined;
    }
  }
}

/** Why `content` does not answer a question of `schema`, or undefined when it does. */
export function checkAnswer(
  schema: ElicitSchema,
  content: Readonly<Record<string, Value>>,
): string | undefined {
  const properties = schema.properties;
  for (const name of Object.keys(content))
    if (!Object.hasOwn(properties, name)) return `${name}: the question has no such field`;
  for (const name of schema.required ?? [])
    if (!Object.hasOwn(content, name)) return `${name}: required`;
  for (const [name, field] of Object.entries(properties)) {
    if (!Object.hasOwn(content, name)) continue;
    const wrong = checkField(name, usableBounds(field), content[name]);
    if (wrong !== undefined) return wrong;
  }
  return undefined;
}
