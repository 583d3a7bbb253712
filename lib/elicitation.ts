/**
 * What a tool asks while it runs (`context.elicit`): a form or a page to visit, the answer, and
 * the application's elicitor; part of the tool contract (contract.ts), exported from there.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type { ToolCall } from './contract.js';

/**
 * One field of a question's form: the primitive schemas MCP allows in elicitation. A string with
 * `enum` is a single choice (`enumNames` are their labels), as is a string with `oneOf` (each
 * value with its title); an array of enum strings (or of titled `anyOf` values) a multiple
 * choice. {@link elicitChoices} lists a field's choices in any of these forms.
 */
export type ElicitField =
  | {
      /** A text field. */
      type: 'string';
      /** The field's label. */
      title?: string;
      /** A longer explanation of the field. */
      description?: string;
      /** The fewest characters accepted. */
      minLength?: number;
      /** The most characters accepted. */
      maxLength?: number;
      /** The text's format. */
      format?: 'email' | 'uri' | 'date' | 'date-time';
      /** The value the form starts with. */
      default?: string;
      /** The only values accepted: a single choice. */
      enum?: string[];
      /** The labels of `enum`'s values, in the same order. */
      enumNames?: string[];
      /** A single choice whose values have labels: each value (`const`) with its `title`. */
      oneOf?: {
        /** The value. */
        const: string;
        /** Its label. */
        title: string;
      }[];
    }
  | {
      /** A number field; `integer` accepts whole numbers only. */
      type: 'number' | 'integer';
      /** The field's label. */
      title?: string;
      /** A longer explanation of the field. */
      description?: string;
      /** The smallest value accepted. */
      minimum?: number;
      /** The largest value accepted. */
      maximum?: number;
      /** The value the form starts with. */
      default?: number;
    }
  | {
      /** A yes/no field. */
      type: 'boolean';
      /** The field's label. */
      title?: string;
      /** A longer explanation of the field. */
      description?: string;
      /** The value the form starts with. */
      default?: boolean;
    }
  | {
      /** A multiple choice. */
      type: 'array';
      /** The field's label. */
      title?: string;
      /** A longer explanation of the field. */
      description?: string;
      /** The fewest choices accepted. */
      minItems?: number;
      /** The most choices accepted. */
      maxItems?: number;
      /** The choices: values (`enum`), or values with labels (`anyOf` of `const` and `title`). */
      items:
        | {
            /** Choices are strings. */
            type: 'string';
            /** The values that can be chosen. */
            enum: string[];
          }
        | {
            /** The values that can be chosen (`const`), each with its label (`title`). */
            anyOf: {
              /** The value. */
              const: string;
              /** Its label. */
              title: string;
            }[];
          };
      /** The choices the form starts with. */
      default?: string[];
    };

/** A flat object schema, as MCP defines for elicitation (its `requestedSchema`). */
export interface ElicitSchema {
  /** Always an object. */
  type: 'object';
  /** The form's fields, by name. */
  properties: Record<string, ElicitField>;
  /** The names of the fields an accepted answer must fill. */
  required?: string[];
}

/**
 * A question answered in a form: `context.elicit({ message, schema })`. MCP's form mode; its
 * answer's content is the form's values.
 */
export interface ElicitFormRequest {
  /** Form mode; may be left out. */
  readonly mode?: 'form';
  /** The question, for a person. */
  readonly message: string;
  /** The form of the answer. */
  readonly schema: ElicitSchema;
  /**
   * A name for the question within its call: 1 to 64 letters, digits, `_`, `.` or `-`. Optional;
   * where a question travels under a name (MCP 2026-07-28's `inputRequests`, a key per question)
   * it goes under this one, when no other open question of the call has it, else under `q<n>`.
   */
  readonly key?: string;
}

/**
 * A question answered on a page: `context.elicit({ mode: 'url', message, url })`. MCP's URL mode,
 * for what must not pass through the client or the model (a credential, a payment, a third party's
 * authorization): the person is shown the full URL and its host, opens it only if they agree, and
 * answers once back. `accept` says they went and came back (its content is always empty: what they
 * typed there is the page's, never the answer's); the tool then checks with its own page whether
 * the interaction finished. `decline` and `cancel` as for a form.
 */
export interface ElicitUrlRequest {
  /** URL mode. */
  readonly mode: 'url';
  /** Why the person should go there, for a person. */
  readonly message: string;
  /** Where: an absolute `http:` or `https:` URL, at most 2,048 characters, no credentials in it. */
  readonly url: string;
  /** As {@link ElicitFormRequest.key}. */
  readonly key?: string;
}

/** What a tool asks: a form ({@link ElicitFormRequest}) or a page ({@link ElicitUrlRequest}). */
export type ElicitRequest = ElicitFormRequest | ElicitUrlRequest;

/**
 * The person's answer, as MCP's elicitation result: `accept` with the form's content, `decline`
 * (they said no), or `cancel` (they dismissed it, or nobody could answer).
 */
export type ElicitResult =
  | {
      /** The person answered. */
      readonly action: 'accept';
      /** The form's values, by field name. */
      readonly content: Readonly<Record<string, string | number | boolean | string[]>>;
    }
  | {
      /** The person refused to answer. */
      readonly action: 'decline';
    }
  | {
      /** The question was dismissed, or the call ended before an answer. */
      readonly action: 'cancel';
    };

/**
 * Answers a tool's question for the application, with the same shape as a Recorder: a plain answer, a
 * Promise of one, or an Observable whose first value is the answer. A throw, a rejection, an
 * observable that errors or completes empty, an answer that is not an {@link ElicitResult}, or an
 * accepted answer whose content does not fit the question's schema (a field of the wrong type,
 * outside its choices or bounds, missing though required, or not in the schema; told in one
 * `console.error` line naming the field) resolves the tool's `elicit` to `{ action: 'cancel' }`,
 * never an error in the tool. When the
 * call ends first, an Observable answer is unsubscribed (a Promise is left to settle, ignored).
 */
export type Elicitor = (
  request: ElicitRequest,
  call: ToolCall,
) => ElicitResult | Promise<ElicitResult> | Observable<ElicitResult>;
