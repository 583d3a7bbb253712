/**
 * Results and content parts: what the model sees of a call, and the conversion of a function's
 * return value into it.
 *
 * A value made with this module's helpers is recognised by identity (a module-private WeakSet),
 * not by its shape, so a plain array or object a tool returns is always JSON data and can never
 * be mistaken for parts or a result, whatever fields it happens to have.
 *
 * @module
 */
import { describeThrown } from './errors.js';
import type { ContentPart, InputFile, InputImage, InputText } from './open-responses.js';
import type { ProgressInfo, ProgressUpdate, ToolResult } from './contract.js';

const made = new WeakSet<object>();

function mark<T extends object>(value: T): T {
  made.add(value);
  return value;
}

/** Extra fields of a result besides its output. */
export interface ResultExtras {
  /** App-only data; never sent to the model. */
  details?: unknown;
  /** Hints that the loop may stop after this batch. */
  terminate?: boolean;
}

function withExtras(output: ToolResult['output'], extras?: ResultExtras): ToolResult {
  const result: ToolResult = { output };
  if (extras?.details !== undefined) result.details = extras.details;
  if (extras?.terminate === true) result.terminate = true;
  return mark(result);
}

/** A result whose output is text. */
export function textResult(text: string, extras?: ResultExtras): ToolResult {
  return withExtras(text, extras);
}

/** A result whose output is a list of content parts. */
export function partsResult(parts: readonly ContentPart[], extras?: ResultExtras): ToolResult {
  return withExtras([...parts], extras);
}

/**
 * The output the model sees when a call fails: `Error: <message>`, with the prefix added once (a
 * message that already starts with it is kept as it is). The stack never reaches the model.
 */
export function errorResult(err: unknown): ToolResult {
  const message = describeThrown(err);
  return mark({ output: message.startsWith('Error: ') ? message : `Error: ${message}` });
}

/** A text part. */
export function textPart(text: string): InputText {
  return mark({ type: 'input_text', text });
}

/**
 * An image part: from a URL (a `data:` URL for inline bytes), or from base64 `data` and its
 * `mimeType`, which becomes a data URL.
 */
export function imagePart(
  image: string | { data: string; mimeType: string },
  detail?: InputImage['detail'],
): InputImage {
  const url = typeof image === 'string' ? image : `data:${image.mimeType};base64,${image.data}`;
  const part: InputImage = { type: 'input_image', image_url: url };
  if (detail !== undefined) part.detail = detail;
  return mark(part);
}

/**
 * A file part: inline base64 `data` with its `mimeType` (a data URL in `file_data`), or a `url`.
 */
export function filePart(
  file: { filename?: string } & ({ data: string; mimeType: string } | { url: string }),
): InputFile {
  const part: InputFile = { type: 'input_file' };
  if (file.filename !== undefined) part.filename = file.filename;
  if ('url' in file) part.file_url = file.url;
  else part.file_data = `data:${file.mimeType};base64,${file.data}`;
  return mark(part);
}

/** A list of content parts that a tool function returns to mean parts, not JSON data. */
export function parts(...items: ContentPart[]): ContentPart[] {
  return mark(items);
}

/** Whether `value` was made by {@link textResult}, {@link partsResult} or {@link errorResult}. */
export function isMadeResult(value: unknown): value is ToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    made.has(value) &&
    'output' in value
  );
}

/**
 * Converts what a tool function returned into the result the model sees: a string is text; a
 * result made with {@link textResult} or {@link partsResult} is used as is; parts made with
 * {@link parts}, or one part made with a part helper, are parts; undefined is empty text; anything
 * else is JSON text.
 *
 * @param value What the function returned.
 * @param tool The tool's name, for the messages below.
 * @throws the value itself when it is an Error: an Error returned is the tool's failure, as one
 *   thrown is. A TypeError of one line naming the tool for a value JSON cannot express (a BigInt, a
 *   cycle, a function).
 */
export function toResult(value: unknown, tool?: string): ToolResult {
  if (typeof value === 'string') return { output: value };
  if (value === undefined) return { output: '' };
  if (value instanceof Error) throw value;
  if (typeof value === 'object' && value !== null && made.has(value)) {
    if (Array.isArray(value)) return { output: value as ContentPart[] };
    if ('output' in value) return value as ToolResult;
    return { output: [value as ContentPart] };
  }
  let json: string | undefined;
  let why = `it is a ${typeof value}`;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
    why = /circular/i.test(first)
      ? 'it is circular'
      : /bigint/i.test(first)
        ? 'it holds a BigInt'
        : first;
  }
  if (json === undefined) {
    const who = tool === undefined ? 'a tool' : `tool ${JSON.stringify(tool)}`;
    throw new TypeError(`${who} returned a value JSON cannot express: ${why}`);
  }
  return { output: json };
}

function isProgressInfo(update: object): update is ProgressInfo {
  return typeof (update as { progress?: unknown }).progress === 'number' && !('output' in update);
}

/**
 * The result a progress update stands for: text as text, a result as is, and a
 * {@link ProgressInfo} as `{ output: message ?? "", details: info }`.
 */
export function progressResult(update: ProgressUpdate): ToolResult {
  if (typeof update === 'string') return { output: update };
  if (isProgressInfo(update)) return { output: update.message ?? '', details: update };
  return update;
}
