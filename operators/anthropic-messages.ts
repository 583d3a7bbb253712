/**
 * Anthropic's Messages format: the tools of a request, the `tool_use` blocks of a response in, the
 * `tool_result` blocks out. Typed structurally, so the `@anthropic-ai/sdk` package's types fit as
 * they are (test/types).
 *
 * @module
 */
import { throwError } from 'rxjs';
import type { Tool } from '../lib/contract.js';
import type { ContentPart, ToolOutput } from '../lib/open-responses.js';
import { definition } from '../lib/tool-set.js';
import { placeholder } from './chat-completions.js';
import { detachedResultParts } from './detached-result-item.js';
import type { ExecutionEvent, Job, SettledResult } from './job.js';
import { missingTool } from './jobs-from-items.js';
import { eachOutput } from './to-output-items.js';

/** The JSON Schema of a tool's input: an object schema. */
export interface AnthropicInputSchema {
  /** Always `object`. */
  type: 'object';
  /** The rest of the schema. */
  [key: string]: unknown;
}

/** A tool of a Messages request. */
export interface AnthropicTool {
  /** The name the model calls. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The JSON Schema of the input object. */
  input_schema: AnthropicInputSchema;
  /** Present, and true, for a tool whose schema follows the strict rules. */
  strict?: true;
}

/** A content block of a response: `tool_use` blocks are the calls. */
export interface AnthropicContentBlock {
  /** The block's kind: `tool_use` for a call; any other is skipped. */
  readonly type: string;
  /** A `tool_use` block's id, which its `tool_result` must echo. */
  readonly id?: string;
  /** A `tool_use` block's tool name. */
  readonly name?: string;
  /** A `tool_use` block's input, already parsed. */
  readonly input?: unknown;
}

/** Text in a `tool_result`. */
export interface AnthropicTextBlock {
  /** Always `text`. */
  type: 'text';
  /** The text. */
  text: string;
}

/** Bytes inline, base64-encoded, with their media type. */
export interface AnthropicBase64Source<M extends string> {
  /** Always `base64`. */
  type: 'base64';
  /** The bytes' media type. */
  media_type: M;
  /** The bytes, base64-encoded. */
  data: string;
}

/** Something the model fetches from a URL. */
export interface AnthropicUrlSource {
  /** Always `url`. */
  type: 'url';
  /** Where it is. */
  url: string;
}

/** An image in a `tool_result`. */
export interface AnthropicImageBlock {
  /** Always `image`. */
  type: 'image';
  /** The image, inline or by URL. */
  source:
    | AnthropicBase64Source<'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'>
    | AnthropicUrlSource;
}

/** A PDF document in a `tool_result`. */
export interface AnthropicDocumentBlock {
  /** Always `document`. */
  type: 'document';
  /** The PDF, inline or by URL. */
  source: AnthropicBase64Source<'application/pdf'> | AnthropicUrlSource;
  /** Its file name, when it has one. */
  title?: string;
}

/** A block of a `tool_result`'s content. */
export type AnthropicResultBlock =
  AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock;

/** A `tool_result` block of the next user message: what one call gave. */
export interface AnthropicToolResult {
  /** Always `tool_result`. */
  type: 'tool_result';
  /** The id of the `tool_use` block this answers. */
  tool_use_id: string;
  /** What the model reads: text, or text, image and document blocks. */
  content: string | AnthropicResultBlock[];
  /** Set, and true, when the call failed. */
  is_error?: true;
}

/**
 * The Messages definitions of `tools`, in order: what a request's `tools` takes.
 *
 * ```ts
 * const message = await anthropic.messages.create({
 *   model, max_tokens, messages, tools: anthropicTools(toolSet),
 * });
 * ```
 */
export function anthropicTools(tools: Iterable<Tool>): AnthropicTool[] {
  const out: AnthropicTool[] = [];
  for (const tool of tools) {
    const { name, description, parameters, strict } = definition(tool);
    const schema = parameters as { type?: unknown; [key: string]: unknown };
    const made: AnthropicTool = {
      name,
      description,
      input_schema: { ...schema, type: 'object' },
    };
    if (strict) made.strict = true;
    out.push(made);
  }
  return out;
}

/**
 * The jobs of a response's `tool_use` blocks, in the model's order: `jobsFromItems` for Anthropic's
 * Messages. A call's id is the block's `id`, its arguments the block's `input` as JSON text; every
 * other block is skipped; a name the set does not hold is a job that fails with a NoToolError.
 *
 * ```ts
 * const jobs = jobsFromToolUses(message.content, toolSet);
 * const settled = await batchResults(jobs);
 * messages.push(
 *   { role: 'assistant', content: message.content },
 *   { role: 'user', content: toToolResults(jobs, settled) },
 * );
 * ```
 *
 * @param content The response's content blocks (`message.content`).
 * @param tools The tools the model was offered; only `lookup` is used.
 */
export function jobsFromToolUses(
  content: Iterable<AnthropicContentBlock>,
  tools: { lookup(name: string): Tool | undefined },
): Job[] {
  const jobs: Job[] = [];
  for (const block of content) {
    if (block.type !== 'tool_use') continue;
    const id = String(block.id ?? '');
    const name = String(block.name ?? '');
    let args: string;
    try {
      args = block.input === undefined ? '' : JSON.stringify(block.input);
    } catch (err) {
      // An input no JSON can hold (a cycle, a BigInt): that call fails, saying why.
      jobs.push({ tool: unreadable(name, err), call: { id, args: '' } });
      continue;
    }
    jobs.push({ tool: tools.lookup(name) ?? missingTool(name), call: { id, args } });
  }
  return jobs;
}

function unreadable(name: string, err: unknown): Tool {
  const why = err instanceof Error ? err.message : String(err);
  return {
    name,
    description: '',
    execute: () => throwError(() => new TypeError(`tool_use input is not JSON: ${why}`)),
  };
}

/**
 * The `tool_result` blocks of a settled batch, in the model's order: `toOutputItems` for
 * Anthropic's Messages, the content of the next `user` message. Text goes as it is; images as
 * image blocks (inline or by URL), PDF files as document blocks, other files as a line naming
 * them; a failed call as `Error: <message>` with `is_error: true`.
 */
export function toToolResults(
  jobs: readonly Job[],
  settled: readonly SettledResult[],
): AnthropicToolResult[] {
  return eachOutput('toToolResults', jobs, settled, (job, output, failed) =>
    failed
      ? { type: 'tool_result', tool_use_id: job.call.id, content: blocks(output), is_error: true }
      : { type: 'tool_result', tool_use_id: job.call.id, content: blocks(output) },
  );
}

/**
 * A detached call's final event as the blocks of a later `user` message: `detachedResultItem`
 * for Anthropic's Messages (a `tool_use` has one `tool_result`, given in its own turn). The
 * heading and a text output as a text block, images and PDFs as their blocks; put them in the
 * next user message's content, after its `tool_result` blocks.
 *
 * @throws TypeError when `event` is not a final event or names no job of `jobs`.
 */
export function detachedResultBlocks(
  event: ExecutionEvent,
  jobs: readonly Job[],
): AnthropicResultBlock[] {
  return detachedResultParts(event, jobs).map(block);
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A `data:` URL's media type and base64 data, when it is one. */
function dataUrl(url: string | undefined): { type: string; data: string } | undefined {
  const match = url === undefined ? null : /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match === null ? undefined : { type: match[1]!.toLowerCase(), data: match[2]! };
}

function blocks(output: ToolOutput): string | AnthropicResultBlock[] {
  if (typeof output === 'string') return output;
  return output.map(block);
}

function block(part: ContentPart): AnthropicResultBlock {
  if (part.type === 'input_text') return { type: 'text', text: part.text };
  if (part.type === 'input_image') {
    const inline = dataUrl(part.image_url);
    if (inline !== undefined && IMAGE_TYPES.has(inline.type))
      return {
        type: 'image',
        source: {
          type: 'base64',
          media_type: inline.type as 'image/png',
          data: inline.data,
        },
      };
    if (part.image_url !== undefined && /^https?:\/\//.test(part.image_url))
      return { type: 'image', source: { type: 'url', url: part.image_url } };
    return { type: 'text', text: placeholder(part) };
  }
  const inline = dataUrl(part.file_data);
  const title = part.filename === undefined ? {} : { title: part.filename };
  if (inline?.type === 'application/pdf')
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: inline.data },
      ...title,
    };
  if (part.file_url !== undefined && /^https?:\/\/.*\.pdf$/i.test(part.file_url))
    return { type: 'document', source: { type: 'url', url: part.file_url }, ...title };
  return { type: 'text', text: placeholder(part) };
}
