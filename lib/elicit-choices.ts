/**
 * The choices of a question's field, in every form MCP gives them, for the forms that show them.
 *
 * @module
 */
import type { ElicitField } from './contract.js';

/** One choice of a field: the value the answer carries, and the label a form shows. */
export interface ElicitChoice {
  /** The value an accepted answer carries. */
  readonly value: string;
  /** What a form shows for it: its title or enumName, else the value itself. */
  readonly label: string;
}

/**
 * The choices of `field`, in order: a single choice's (a string with `enum`, labelled by
 * `enumNames`, or with titled `oneOf`) or a multiple choice's (an array whose `items` have `enum`,
 * or titled `anyOf`); undefined for a field that is not a choice. A form for a tool's question
 * (a terminal prompt, a web page, an Angular component) shows the labels and answers the values.
 */
export function elicitChoices(field: ElicitField): ElicitChoice[] | undefined {
  if (field.type === 'string') {
    if (field.oneOf !== undefined)
      return field.oneOf.map((o) => ({ value: o.const, label: o.title ?? o.const }));
    return field.enum?.map((value, i) => ({ value, label: field.enumNames?.[i] ?? value }));
  }
  if (field.type === 'array') {
    const items = field.items;
    if ('anyOf' in items) return items.anyOf.map((o) => ({ value: o.const, label: o.title }));
    return items.enum.map((value) => ({ value, label: value }));
  }
  return undefined;
}
