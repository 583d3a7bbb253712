/**
 * A tool's question as a form in its call's row: one control per field of the flat schema (a
 * text, e-mail, URL or date input for a string, a select for a single choice (`enum` or titled
 * `oneOf`), a number input, a checkbox for a boolean, a checkbox per choice for a multiple
 * choice, values or titled), with the schema's defaults and required fields, and Submit, Decline and Dismiss (the
 * answer `cancel`) buttons. The browser checks required fields and bounds before Submit; the
 * server checks the answer again.
 *
 * Stable hooks: `form.question[data-call-index]`, its controls named after the fields (a multiple
 * choice's checkboxes share the name), and `button[data-answer="accept|decline|cancel"]`; a URL
 * question's link is `a.page`, its host `p.host strong`.
 *
 * @module
 */
import type { ElicitField, ElicitRequest, ElicitResult, ElicitUrlRequest } from '../../../index.js';
import { elicitUrlView } from '../../../lib/elicit-url.js';
import { elicitChoices, usableBounds } from '../../../lib/elicit-choices.js';
import { element, setTitle, shown, textNode } from './dom.js';

const INPUT_TYPES = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

function control(name: string, asked: ElicitField, required: boolean): HTMLElement {
  // A bound out of range (a negative maxLength, say) would make the input throw.
  const field = usableBounds(asked);
  switch (field.type) {
    case 'string': {
      const choices = elicitChoices(field);
      if (choices !== undefined) {
        const select = element('select');
        select.name = name;
        select.required = required;
        if (!required || field.default === undefined) select.append(element('option', '', ''));
        for (const { value, label } of choices) {
          const option = element('option', '', label);
          option.value = value;
          option.selected = value === field.default;
          select.append(option);
        }
        return select;
      }
      const input = element('input');
      input.type = field.format === undefined ? 'text' : INPUT_TYPES[field.format];
      if (field.minLength !== undefined) input.minLength = field.minLength;
      if (field.maxLength !== undefined) input.maxLength = field.maxLength;
      // Shown escaped like any text of the tool's; formContent answers the default itself.
      if (field.default !== undefined) input.value = shown(field.default);
      input.name = name;
      input.required = required;
      return input;
    }
    case 'number':
    case 'integer': {
      const input = element('input');
      input.type = 'number';
      input.step = field.type === 'integer' ? '1' : 'any';
      if (field.minimum !== undefined) input.min = String(field.minimum);
      if (field.maximum !== undefined) input.max = String(field.maximum);
      if (field.default !== undefined) input.value = String(field.default);
      input.name = name;
      input.required = required;
      return input;
    }
    case 'boolean': {
      const input = element('input');
      input.type = 'checkbox';
      input.name = name;
      input.checked = field.default === true;
      return input;
    }
    case 'array': {
      const choices = element('span', 'choices');
      for (const { value, label: text } of elicitChoices(field)!) {
        const label = element('label', 'choice');
        const box = element('input');
        box.type = 'checkbox';
        box.name = name;
        box.value = value;
        box.checked = field.default?.includes(value) === true;
        label.append(box, textNode(` ${text}`));
        choices.append(label);
      }
      return choices;
    }
  }
}

function button(answer: ElicitResult['action'], text: string): HTMLButtonElement {
  const b = element('button', answer, text);
  b.type = answer === 'accept' ? 'submit' : 'button';
  b.dataset.answer = answer;
  return b;
}

/**
 * The form for a URL question: the message, the full URL as a link that opens in a new tab with
 * no access back to this page (`noopener noreferrer`), the host set apart, a warning for plain
 * http: or a punycode host, and "I'm back" (accept), Decline and Dismiss. Following the link is
 * the person's own choice; nothing is opened for them.
 */
function pageForm(form: HTMLFormElement, question: ElicitUrlRequest): HTMLFormElement {
  const page = elicitUrlView(question);
  const link = element('a', 'page', page.url);
  link.href = page.url;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  const host = element('p', 'host', 'host: ');
  host.append(element('strong', '', page.host));
  form.append(link, host);
  if (page.insecure) form.append(element('p', 'warn', 'Not encrypted (http:).'));
  if (page.punycode)
    form.append(element('p', 'warn', 'The host is spelt in punycode: it may imitate another.'));
  const buttons = element('div', 'answers');
  buttons.append(
    button('accept', "I'm back"),
    button('decline', 'Decline'),
    button('cancel', 'Dismiss'),
  );
  form.append(buttons);
  return form;
}

/** The form for call `index`'s question. */
export function questionForm(index: number, question: ElicitRequest): HTMLFormElement {
  const form = element('form', 'question');
  form.dataset.callIndex = String(index);
  form.append(element('p', 'ask', question.message));
  if (question.mode === 'url') return pageForm(form, question);
  const required = new Set(question.schema.required ?? []);
  for (const [name, field] of Object.entries(question.schema.properties)) {
    const label = element('label', 'field');
    const title = element(
      'span',
      'title',
      `${field.title ?? name}${required.has(name) ? ' *' : ''}`,
    );
    if (field.description !== undefined) setTitle(title, field.description);
    label.append(title, control(name, field, required.has(name)));
    form.append(label);
  }
  const buttons = element('div', 'answers');
  buttons.append(
    button('accept', 'Submit'),
    button('decline', 'Decline'),
    button('cancel', 'Dismiss'),
  );
  form.append(buttons);
  return form;
}

/**
 * The accepted answer a form holds: each field's value as its schema types it. An empty text or
 * number field that is not required is left out; a checkbox is always in (true or false), a
 * multiple choice as the list of checked values. A URL question's answer has no content.
 */
export function formContent(
  form: HTMLFormElement,
  question: ElicitRequest,
): Record<string, string | number | boolean | string[]> {
  const content: Record<string, string | number | boolean | string[]> = {};
  if (question.mode === 'url') return content;
  const all = Array.from(form.querySelectorAll<HTMLInputElement>('input, select'));
  for (const [name, field] of Object.entries(question.schema.properties)) {
    const controls = all.filter((control) => control.name === name);
    if (field.type === 'boolean') content[name] = controls[0]?.checked === true;
    else if (field.type === 'array')
      content[name] = controls.filter((box) => box.checked).map((box) => box.value);
    else {
      const value = controls[0]?.value ?? '';
      if (value === '') continue;
      if (field.type !== 'string') content[name] = Number(value);
      // A default left as it is answers the default, not the escapes it is shown with.
      else
        content[name] =
          field.default !== undefined && value === shown(field.default) ? field.default : value;
    }
  }
  return content;
}
