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

/** The largest length or count a form takes as a bound: the most an HTML `maxlength` holds. */
const MOST = 2 ** 31 - 1;

const count = (n: unknown): n is number =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) <= MOST;
const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/**
 * The pair of bounds `low` and `high` of `field`, where `fits` says which values are usable ones:
 * each one that is not left out, and both when the lower is above the upper (nothing fits).
 */
function pair<F extends ElicitField>(
  field: F,
  low: keyof F,
  high: keyof F,
  fits: (n: unknown) => boolean,
): F {
  let out = field;
  const drop = (key: keyof F): void => {
    if (out === field) out = { ...field };
    delete out[key];
  };
  const min = field[low];
  const max = field[high];
  if (min !== undefined && !fits(min)) drop(low);
  if (max !== undefined && !fits(max)) drop(high);
  if (
    out === field &&
    min !== undefined &&
    max !== undefined &&
    (min as number) > (max as number)
  ) {
    drop(low);
    drop(high);
  }
  return out;
}

/**
 * `field` with only the bounds a form can use: a `minLength`, `maxLength`, `minItems` or
 * `maxItems` that is not a whole number from 0 to 2^31 - 1, a `minimum` or `maximum` that is not a
 * finite number, and both bounds of a pair whose lower is above its upper, are left out (a
 * question's schema comes from a tool or a peer: such a bound would break a web form, or refuse
 * every answer). `field` itself when all of its bounds are usable. Every form that shows a
 * question, and the check of its answer, read the field through this.
 */
export function usableBounds(field: ElicitField): ElicitField {
  switch (field.type) {
    case 'string':
      return pair(field, 'minLength', 'maxLength', count);
    case 'number':
    case 'integer':
      return pair(field, 'minimum', 'maximum', finite);
    case 'array':
      return pair(field, 'minItems', 'maxItems', count);
    default:
      return field;
  }
}
