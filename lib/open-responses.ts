/**
 * The Open Responses shapes this package reads and writes: function tools on a request,
 * function_call items from the model, function_call_output items back to it, and the content
 * parts an output may hold. Only the fields the tool contract touches are typed; anything else a
 * provider adds passes through untouched.
 *
 * @module
 */

/** Text the model reads. */
export interface InputText {
  type: 'input_text';
  text: string;
}

/** An image the model sees: a URL (a `data:` URL for inline bytes) or an uploaded file's id. */
export interface InputImage {
  type: 'input_image';
  image_url?: string;
  file_id?: string;
  detail?: 'low' | 'high' | 'auto';
}

/** A file the model reads: inline `file_data` (a `data:` URL), a `file_url`, or an uploaded file's id. */
export interface InputFile {
  type: 'input_file';
  filename?: string;
  file_data?: string;
  file_url?: string;
  file_id?: string;
}

/** One content part of a function_call_output. */
export type ContentPart = InputText | InputImage | InputFile;

/** What the model sees of a tool call: text, or a list of content parts. */
export type ToolOutput = string | ContentPart[];

/** A function tool on a request, as {@link definition} builds it. */
export interface FunctionTool {
  type: 'function';
  name: string;
  description: string;
  /** The JSON Schema of the arguments object; never null. */
  parameters: JsonSchema;
  /** Present, and true, only for a tool whose schema follows the strict rules. */
  strict?: true;
}

/** A function_call output item from the model. */
export interface FunctionCallItem {
  type: 'function_call';
  /** The id the output item must echo. */
  call_id: string;
  name: string;
  /** The raw JSON text of the arguments, as the model wrote it. */
  arguments: string;
  id?: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/** A function_call_output input item for the next request. */
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: ToolOutput;
}

/** Any item of a response's output: function calls are the ones this package acts on. */
export type OutputItem = FunctionCallItem | { type: string; [key: string]: unknown };

/** A JSON Schema object, as served to the model. */
export type JsonSchema = { [key: string]: unknown };
