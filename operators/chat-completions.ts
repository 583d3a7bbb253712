/**
 * The Chat Completions format (OpenAI's `chat.completions`, and the many APIs that speak it):
 * the tools of a request, the tool calls of an assistant message in, the `tool` messages out.
 * Typed structurally, so the `openai` package's types fit as they are (test/types).
 *
 * @module
 */
import { throwError } from 'rxjs';
import type { Tool } from '../lib/contract.js';
import type { JsonSchema, ToolOutput } from '../lib/open-responses.js';
import { definition } from '../lib/tool-set.js';
import { detachedResultParts } from './detached-result-item.js';
import type { ExecutionEvent, Job, SettledResult } from './job.js';
import { missingTool } from './jobs-from-items.js';
import { eachOutput } from './to-output-items.js';

/** A function tool of a Chat Completions request. */
export interface ChatCompletionsTool {
  /** Always `function`. */
  type: 'function';
  /** The function the model may call. */
  function: {
    /** The name the model calls. */
    name: string;
    /** What the tool does, for the model. */
    description: string;
    /** The JSON Schema of the arguments object. */
    parameters: JsonSchema;
    /** True only for a tool whose schema follows the strict rules. */
    strict: boolean;
  };
}

/** A tool call of an assistant message, as Chat Completions writes it. */
export interface ChatCompletionsToolCall {
  /** The id the `tool` message must echo. */
  readonly id: string;
  /** `function` for the calls this package runs; another kind (`custom`) is not one of its tools. */
  readonly type: string;
  /** The function called: its name and its arguments' JSON text. */
  readonly function?: ChatCompletionsFunctionCall;
}

/** The function a tool call calls. */
export interface ChatCompletionsFunctionCall {
  /** The tool's name. */
  readonly name: string;
  /** The arguments, as the JSON text the model wrote. */
  readonly arguments: string;
}

/** A text part of a `tool` message. */
export interface ChatCompletionsTextPart {
  /** Always `text`. */
  type: 'text';
  /** The text. */
  text: string;
}

/** A `tool` message of the next request: what one call gave. */
export interface ChatCompletionsToolMessage {
  /** Always `tool`. */
  role: 'tool';
  /** The id of the tool call this answers. */
  tool_call_id: string;
  /** What the model reads: the output's text, or its text parts. */
  content: string | ChatCompletionsTextPart[];
}

/**
 * The Chat Completions definitions of `tools`, in order: what a request's `tools` takes.
 *
 * ```ts
 * const completion = await openai.chat.completions.create({
 *   model, messages, tools: chatCompletionsTools(toolSet),
 * });
 * ```
 */
export function chatCompletionsTools(tools: Iterable<Tool>): ChatCompletionsTool[] {
  const out: ChatCompletionsTool[] = [];
  for (const tool of tools) {
    const { name, description, parameters, strict } = definition(tool);
    out.push({ type: 'function', function: { name, description, parameters, strict } });
  }
  return out;
}

/**
 * The jobs of an assistant message's tool calls, in the model's order: `jobsFromItems` for Chat
 * Completions. A call's id is the tool call's `id`, its arguments the `function.arguments` text,
 * untouched; a name the set does not hold is a job that fails with a NoToolError, and a tool call
 * of another kind than `function` (a custom tool's) one that fails saying it is not a function
 * call, so that every tool call gets its `tool` message.
 *
 * ```ts
 * const message = completion.choices[0].message;
 * const jobs = jobsFromToolCalls(message, toolSet);
 * const settled = await batchResults(jobs);
 * messages.push(message, ...toToolMessages(jobs, settled));
 * ```
 *
 * @param message The assistant message (or anything with its `tool_calls`).
 * @param tools The tools the model was offered; only `lookup` is used.
 */
export function jobsFromToolCalls(
  message: { readonly tool_calls?: readonly ChatCompletionsToolCall[] | null | undefined },
  tools: { lookup(name: string): Tool | undefined },
): Job[] {
  const jobs: Job[] = [];
  for (const call of message.tool_calls ?? []) {
    const fn = call.function;
    if (call.type !== 'function' || fn === undefined) {
      jobs.push({ tool: notAFunction(call.type), call: { id: call.id, args: '' } });
      continue;
    }
    const tool = tools.lookup(fn.name) ?? missingTool(fn.name);
    jobs.push({ tool, call: { id: call.id, args: fn.arguments ?? '' } });
  }
  return jobs;
}

/** The tool for a call of a kind this package does not run: it fails, saying so. */
function notAFunction(kind: string): Tool {
  return {
    name: kind,
    description: '',
    execute: () =>
      throwError(
        () => new TypeError(`not a function call: a "${kind}" tool call is not one of these tools`),
      ),
  };
}

/**
 * The `tool` messages of a settled batch, in the model's order: `toOutputItems` for Chat
 * Completions. Text goes as it is; content parts as text parts, an image or a file (which a
 * `tool` message cannot carry) as a line naming it; an error as `Error: <message>`.
 */
export function toToolMessages(
  jobs: readonly Job[],
  settled: readonly SettledResult[],
): ChatCompletionsToolMessage[] {
  return eachOutput('toToolMessages', jobs, settled, (job, output) => ({
    role: 'tool',
    tool_call_id: job.call.id,
    content: textContent(output),
  }));
}

/** A `user` message of a later request: what a detached call gave. */
export interface ChatCompletionsUserMessage {
  /** Always `user`. */
  role: 'user';
  /** The message: text, or text parts. */
  content: string | ChatCompletionsTextPart[];
}

/**
 * A detached call's final event as a `user` message of a later request: `detachedResultItem`
 * for Chat Completions (a tool call has one `tool` message, sent in its own turn). Text when the
 * result is text; otherwise text parts, an image or a file as a line naming it.
 *
 * @throws TypeError when `event` is not a final event or names no job of `jobs`.
 */
export function detachedResultMessage(
  event: ExecutionEvent,
  jobs: readonly Job[],
): ChatCompletionsUserMessage {
  const parts = detachedResultParts(event, jobs);
  const first = parts[0]!;
  const content =
    parts.length === 1 && first.type === 'input_text' ? first.text : textContent(parts);
  return { role: 'user', content };
}

/** An output as Chat Completions text: a string, or text parts. */
function textContent(output: ToolOutput): string | ChatCompletionsTextPart[] {
  if (typeof output === 'string') return output;
  return output.map((part) => {
    if (part.type === 'input_text') return { type: 'text', text: part.text };
    return { type: 'text', text: placeholder(part) };
  });
}

/** A line that stands for an image or a file in a format that cannot carry it. */
export function placeholder(part: {
  type: string;
  image_url?: string | undefined;
  filename?: string | undefined;
  file_url?: string | undefined;
  file_id?: string | undefined;
}): string {
  const url = part.image_url ?? part.file_url;
  const where =
    url !== undefined && /^https?:\/\//.test(url)
      ? ` at ${url}`
      : part.file_id !== undefined
        ? ` (file ${part.file_id})`
        : '';
  if (part.type === 'input_image') return `[image${where}]`;
  return `[file${part.filename === undefined ? '' : ` ${part.filename}`}${where}]`;
}
