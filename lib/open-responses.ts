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
  /** Always `input_text`. */
  type: 'input_text';
  /** The text. */
  text: string;
}

/** An image the model sees: a URL (a `data:` URL for inline bytes) or an uploaded file's id. */
export interface InputImage {
  /** Always `input_image`. */
  type: 'input_image';
  /** The image's URL; a `data:` URL for inline bytes. */
  image_url?: string;
  /** The id of an uploaded file, instead of a URL. */
  file_id?: string;
  /** How closely the model looks. */
  detail?: 'low' | 'high' | 'auto';
}

/** A file the model reads: inline `file_data` (a `data:` URL), a `file_url`, or an uploaded file's id. */
export interface InputFile {
  /** Always `input_file`. */
  type: 'input_file';
  /** The file's name, for the model. */
  filename?: string;
  /** The file's bytes as a `data:` URL. */
  file_data?: string;
  /** Where the file can be fetched. */
  file_url?: string;
  /** The id of an uploaded file. */
  file_id?: string;
}

/** One content part of a function_call_output. */
export type ContentPart = InputText | InputImage | InputFile;

/** What the model sees of a tool call: text, or a list of content parts. */
export type ToolOutput = string | ContentPart[];

/** A function tool on a request, as {@link definition} builds it. */
export interface FunctionTool {
  /** Always `function`. */
  type: 'function';
  /** The name the model calls. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The JSON Schema of the arguments object; never null. */
  parameters: JsonSchema;
  /**
   * True only for a tool whose schema follows the strict rules (the provider then holds the
   * model's arguments to it); false otherwise. Always present: the OpenAI SDK requires it.
   */
  strict: boolean;
}

/** A function_call output item from the model. */
export interface FunctionCallItem {
  /** Always `function_call`. */
  type: 'function_call';
  /** The id the output item must echo. */
  call_id: string;
  /** The name of the tool the model calls. */
  name: string;
  /** The raw JSON text of the arguments, as the model wrote it. */
  arguments: string;
  /** The item's own id, when the provider gives one. */
  id?: string;
  /** Whether the model finished writing the call. */
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/** A function_call_output input item for the next request. */
export interface FunctionCallOutputItem {
  /** Always `function_call_output`. */
  type: 'function_call_output';
  /** The `call_id` of the function_call this answers. */
  call_id: string;
  /** What the model sees: text, or content parts. */
  output: ToolOutput;
}

/**
 * A message input item: what a person (`user`) says in the next request. `detachedResultItem`
 * makes one to report a detached call's result, since a call has one function_call_output only.
 */
export interface InputMessageItem {
  /** Always `message`. */
  type: 'message';
  /** Always `user`. */
  role: 'user';
  /** What the message says: text and the parts a result holds. */
  content: ContentPart[];
}

/**
 * Any item of a response's output: function calls are the ones this package acts on. Typed
 * structurally, so the item types of an SDK (the `openai` package's `ResponseOutputItem`, say)
 * fit as they are, and so does an item written out with fields of its own.
 */
export type OutputItem = FunctionCallItem | OtherItem;

/** An output item of another kind (`message`, `reasoning`, ...): only its `type` is read. */
export type OtherItem =
  | {
      /** The item's kind. */
      readonly type: string;
    }
  | {
      /** The item's kind. */
      readonly type: string;
      /** Whatever else the item holds, passed through untouched. */
      readonly [key: string]: unknown;
    };

/** A JSON Schema object, as served to the model. */
export type JsonSchema = { [key: string]: unknown };
