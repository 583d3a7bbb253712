/**
 * One field of a tool's question on the terminal: the prompt that shows it (label, choices,
 * default) and the check of what the person typed.
 *
 * @module
 */
import { elicitChoices, type ElicitChoice, type ElicitField } from '../../index.js';
import { usableBounds } from '../../lib/elicit-choices.js';
import { visible } from './visible.js';

/** A value a form field takes. */
export type FieldValue = string | number | boolean | string[];

/** What a typed line gives: the value (undefined: leave the field out), or why it is refused. */
export type Parsed = { value: FieldValue | undefined } | { error: string };

function shown(value: FieldValue): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * The prompt of a field: `  <label> (<description>): 1) a  2) b [default]: `, with `*` after a
 * required label, `[y/n]` for a yes/no (the default in capitals) and the bounds of a number (those
 * {@link usableBounds} keeps).
 */
export function fieldPrompt(name: string, asked: ElicitField, required: boolean): string {
  const field = usableBounds(asked);
  let text = `  ${field.title ?? name}${required ? '*' : ''}`;
  if (field.description !== undefined) text += ` (${field.description})`;
  const choices = elicitChoices(field);
  if (choices !== undefined) {
    const many = field.type === 'array' ? ', several comma-separated' : '';
    text += `: ${choices.map((c, i) => `${i + 1}) ${c.label}`).join('  ')}${many}`;
  }
  if (field.type === 'number' || field.type === 'integer') {
    const bounds = [
      field.type === 'integer' ? 'whole number' : 'number',
      field.minimum === undefined ? '' : `>= ${field.minimum}`,
      field.maximum === undefined ? '' : `<= ${field.maximum}`,
    ].filter((b) => b !== '');
    text += ` (${bounds.join(', ')})`;
  }
  if (field.type === 'boolean')
    text += field.default === undefined ? ' [y/n]' : field.default ? ' [Y/n]' : ' [y/N]';
  else if (field.default !== undefined) text += ` [${shown(field.default)}]`;
  return `${visible(text)}: `;
}

/** One choice typed as its number, its value or its label. */
function choose(choices: readonly ElicitChoice[], typed: string): string | undefined {
  const n = Number(typed);
  if (/^\d+$/.test(typed) && n >= 1 && n <= choices.length) return choices[n - 1]!.value;
  return choices.find((c) => c.value === typed || c.label === typed)?.value;
}

const refuse = (error: string): Parsed => ({ error });

/**
 * The value of `field` typed as `typed` (trimmed): the default for an empty line (or nothing, for
 * a field that is not required), else checked against the field's type, choices and bounds (those
 * {@link usableBounds} keeps).
 */
export function parseField(asked: ElicitField, typed: string, required: boolean): Parsed {
  const field = usableBounds(asked);
  if (typed === '') {
    if (field.default !== undefined) return { value: field.default };
    return required ? refuse('an answer is required') : { value: undefined };
  }
  const choices = elicitChoices(field);
  const list = choices?.map((_choice, i) => `${i + 1}`).join(', ');
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(typed)) return { value: true };
      if (/^(n|no|false)$/i.test(typed)) return { value: false };
      return refuse('answer y or n');
    case 'number':
    case 'integer': {
      const n = Number(typed);
      if (!Number.isFinite(n)) return refuse('expected a number');
      if (field.type === 'integer' && !Number.isInteger(n))
        return refuse('expected a whole number');
      if (field.minimum !== undefined && n < field.minimum)
        return refuse(`expected at least ${field.minimum}`);
      if (field.maximum !== undefined && n > field.maximum)
        return refuse(`expected at most ${field.maximum}`);
      return { value: n };
    }
    case 'array': {
      const picked: string[] = [];
      for (const part of typed
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '')) {
        const value = choose(choices!, part);
        if (value === undefined) return refuse(`choose among ${list}`);
        if (!picked.includes(value)) picked.push(value);
      }
      if (field.minItems !== undefined && picked.length < field.minItems)
        return refuse(`choose at least ${field.minItems}`);
      if (field.maxItems !== undefined && picked.length > field.maxItems)
        return refuse(`choose at most ${field.maxItems}`);
      return { value: picked };
    }
    case 'string': {
      if (choices !== undefined) {
        const value = choose(choices, typed);
        return value === undefined ? refuse(`choose one of ${list}`) : { value };
      }
      if (field.minLength !== undefined && typed.length < field.minLength)
        return refuse(`expected at least ${field.minLength} characters`);
      if (field.maxLength !== undefined && typed.length > field.maxLength)
        return refuse(`expected at most ${field.maxLength} characters`);
      return { value: typed };
    }
  }
}
