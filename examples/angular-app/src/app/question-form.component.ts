/**
 * A tool's question as a form: one control per field of its flat schema (a text input, a select
 * for a single choice (`enum` or titled `oneOf`), a number input, a checkbox, a checkbox per
 * option of a multiple choice), with the schema's defaults and required fields. Submit (after the
 * browser's own checks), Decline and Cancel each emit the answer once. A URL question shows its
 * page instead: the full URL as a link opening in a new tab, its host apart, a warning for http:
 * or a punycode host, and "I'm back" to accept once the person has been there.
 *
 * ```html
 * <app-question-form [question]="call.question" (answer)="answer(call.index, $event)" />
 * ```
 */
import { ChangeDetectionStrategy, Component, computed, input, output } from '@angular/core';
import {
  elicitChoices,
  elicitUrlView,
  usableBounds,
  type ElicitChoice,
  type ElicitField,
  type ElicitRequest,
  type ElicitResult,
  type ElicitUrlView,
} from 'agenttool';

/** One field of the form, as the template draws it. */
interface FieldView {
  readonly name: string;
  readonly label: string;
  readonly field: ElicitField;
  readonly required: boolean;
}

type Value = string | number | boolean | string[];

@Component({
  selector: 'app-question-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form class="question" #form (submit)="$event.preventDefault(); submit(form)">
      <p class="ask">{{ question().message }}</p>
      @if (page(); as p) {
        <a class="page" [href]="p.url" target="_blank" rel="noopener noreferrer">{{ p.url }}</a>
        <p class="host">
          host: <strong>{{ p.host }}</strong>
        </p>
        @if (p.insecure) {
          <p class="warn">Not encrypted (http:).</p>
        }
        @if (p.punycode) {
          <p class="warn">The host is spelt in punycode: it may imitate another.</p>
        }
      }
      @for (f of fields(); track f.name) {
        <label>
          {{ f.label }}{{ f.required ? ' *' : '' }}
          @switch (f.field.type) {
            @case ('boolean') {
              <input type="checkbox" [name]="f.name" [checked]="initial(f.field) === true" />
            }
            @case ('array') {
              @for (choice of choices(f.field); track choice.value) {
                <label class="choice">
                  <input
                    type="checkbox"
                    [name]="f.name"
                    [value]="choice.value"
                    [checked]="isDefault(f.field, choice.value)"
                  />
                  {{ choice.label }}
                </label>
              }
            }
            @case ('string') {
              @if (options(f.field); as values) {
                <select [name]="f.name" [required]="f.required">
                  @for (choice of values; track choice.value) {
                    <option [value]="choice.value" [selected]="initial(f.field) === choice.value">
                      {{ choice.label }}
                    </option>
                  }
                </select>
              } @else {
                <input
                  type="text"
                  [name]="f.name"
                  [required]="f.required"
                  [value]="initial(f.field) ?? ''"
                />
              }
            }
            @default {
              <input
                type="number"
                [name]="f.name"
                [required]="f.required"
                [value]="initial(f.field) ?? ''"
                [attr.step]="f.field.type === 'integer' ? 1 : 'any'"
                [attr.min]="bound(f.field, 'minimum')"
                [attr.max]="bound(f.field, 'maximum')"
              />
            }
          }
        </label>
      }
      <button type="submit" data-answer="accept">{{ page() ? "I'm back" : 'Submit' }}</button>
      <button type="button" data-answer="decline" (click)="answer.emit({ action: 'decline' })">
        Decline
      </button>
      <button type="button" data-answer="cancel" (click)="answer.emit({ action: 'cancel' })">
        Cancel
      </button>
    </form>
  `,
  styles: `
    form {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5em;
      align-items: center;
    }
    .ask,
    .page,
    .host,
    .warn {
      width: 100%;
      margin: 0;
    }
    .ask {
      font-weight: 600;
    }
    .page {
      overflow-wrap: anywhere;
      font-family: monospace;
    }
    .warn {
      color: #b3261e;
    }
  `,
})
export class QuestionFormComponent {
  /** What the tool asks. */
  readonly question = input.required<ElicitRequest>();
  /** The person's answer: accept with the fields' values, decline, or cancel. */
  readonly answer = output<ElicitResult>();

  /** A URL question's page: the full URL and its host, shown apart; undefined for a form. */
  protected readonly page = computed((): ElicitUrlView | undefined => {
    const question = this.question();
    return question.mode === 'url' ? elicitUrlView(question) : undefined;
  });

  protected readonly fields = computed((): FieldView[] => {
    const question = this.question();
    if (question.mode === 'url') return [];
    const { properties, required = [] } = question.schema;
    // Only the bounds a form can use: a question comes from a tool or a peer.
    return Object.entries(properties).map(([name, field]) => ({
      name,
      label: field.title ?? name,
      field: usableBounds(field),
      required: required.includes(name),
    }));
  });

  protected initial(field: ElicitField): Value | undefined {
    return field.default;
  }
  /** A single choice's options: `enum` (labelled by `enumNames`) or MCP's titled `oneOf`. */
  protected options(field: ElicitField): ElicitChoice[] | undefined {
    return field.type === 'string' ? elicitChoices(field) : undefined;
  }
  /** A multiple choice's options: `items.enum`, or MCP's titled `items.anyOf`. */
  protected choices(field: ElicitField): ElicitChoice[] {
    return field.type === 'array' ? (elicitChoices(field) ?? []) : [];
  }
  protected isDefault(field: ElicitField, choice: string): boolean {
    return field.type === 'array' && field.default?.includes(choice) === true;
  }
  protected bound(field: ElicitField, which: 'minimum' | 'maximum'): number | null {
    return field.type === 'number' || field.type === 'integer' ? (field[which] ?? null) : null;
  }

  /** Reads each field as its schema types it; an empty optional text or number is left out. */
  protected submit(form: HTMLFormElement): void {
    const content: Record<string, Value> = {};
    const controls = Array.from(form.querySelectorAll<HTMLInputElement>('input, select'));
    for (const { name, field } of this.fields()) {
      const mine = controls.filter((control) => control.name === name);
      if (field.type === 'boolean') content[name] = mine[0]?.checked === true;
      else if (field.type === 'array')
        content[name] = mine.filter((box) => box.checked).map((box) => box.value);
      else {
        const value = mine[0]?.value ?? '';
        if (value !== '') content[name] = field.type === 'string' ? value : Number(value);
      }
    }
    this.answer.emit({ action: 'accept', content });
  }
}
