/**
 * Content in both directions: MCP content blocks to what the model sees, and a tool's output back
 * to MCP content.
 *
 * @module
 */
import type { CallToolResult, ContentBlock } from './mcp-types.js';
import type { ToolResult } from '../../lib/contract.js';
import type { ContentPart, ToolOutput } from '../../lib/open-responses.js';

function dataUrl(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

/** The last path segment of a URI, decoded; "" when it has none. */
function lastSegment(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '');
  const segment = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * One MCP content block as a content part: text as text; an image as an `input_image` data URL;
 * audio and blob resources as `input_file`; text resources as text; a resource link as
 * `resource: <uri>`. A block of a kind this version does not know becomes its JSON as text, so
 * nothing the server said is silently dropped.
 */
export function partFromBlock(block: ContentBlock): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'input_text', text: block.text };
    case 'image':
      return { type: 'input_image', image_url: dataUrl(block.mimeType, block.data) };
    case 'audio':
      return { type: 'input_file', file_data: dataUrl(block.mimeType, block.data) };
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string')
        return { type: 'input_text', text: resource.text };
      const part: ContentPart = {
        type: 'input_file',
        file_data: dataUrl(
          resource.mimeType ?? 'application/octet-stream',
          'blob' in resource ? String(resource.blob) : '',
        ),
      };
      const filename = lastSegment(resource.uri);
      if (filename !== '') part.filename = filename;
      return part;
    }
    case 'resource_link':
      return { type: 'input_text', text: `resource: ${block.uri}` };
    default:
      return { type: 'input_text', text: JSON.stringify(block) };
  }
}

/** Whether content blocks carry nothing for the model: none, or only empty text. */
function carriesNothing(blocks: readonly ContentBlock[]): boolean {
  return blocks.every((block) => block.type === 'text' && block.text === '');
}

/**
 * What the model sees of a successful MCP call: the content blocks the server sent, as parts; a
 * result of text alone is one string with the texts joined by "\n". `structuredContent` is not
 * added again (MCP asks a server that returns it to send it as text too): it becomes the output,
 * as JSON text, only when the content carries nothing (no blocks, or only empty text). `details`
 * holds the raw MCP result, `structuredContent` included, for the application, and `structured`
 * the `structuredContent` object itself.
 */
export function resultFromMcp(result: CallToolResult): ToolResult {
  const mapped = outputFromMcp(result);
  const data = result.structuredContent;
  return typeof data === 'object' && data !== null && !Array.isArray(data)
    ? { ...mapped, structured: data as { [key: string]: unknown } }
    : mapped;
}

function outputFromMcp(result: CallToolResult): ToolResult {
  const blocks = result.content ?? [];
  if (result.structuredContent !== undefined && carriesNothing(blocks))
    return { output: JSON.stringify(result.structuredContent), details: result };
  // The common answer, one text block, is its text: no parts to build and join.
  if (blocks.length === 1 && blocks[0]!.type === 'text')
    return { output: blocks[0]!.text, details: result };
  const parts: ContentPart[] = [];
  let textOnly = true;
  for (const block of blocks) {
    const part = partFromBlock(block);
    if (part.type !== 'input_text') textOnly = false;
    parts.push(part);
  }
  const output: ToolOutput = textOnly
    ? parts.map((part) => (part as { text: string }).text).join('\n')
    : parts;
  return { output, details: result };
}

/** The message of a failed MCP call: its text blocks joined by "\n", or `tool call failed`. */
export function errorTextOf(result: CallToolResult): string {
  const texts: string[] = [];
  for (const block of result.content ?? []) if (block.type === 'text') texts.push(block.text);
  const text = texts.join('\n');
  return text === '' ? 'tool call failed' : text;
}

const DATA_URL = /^data:([^,]*?),(.*)$/s;

/** The mime type and base64 data of a `data:` URL, or undefined for any other URL. */
export function parseDataUrl(url: string): { mimeType: string; data: string } | undefined {
  const match = DATA_URL.exec(url);
  if (match === null) return undefined;
  const params = match[1]!.split(';');
  const base64 = params[params.length - 1] === 'base64';
  if (base64) params.pop();
  const mimeType = params[0] === '' || params[0] === undefined ? 'text/plain' : params[0];
  const payload = match[2]!;
  let data: string;
  if (base64) data = payload;
  else {
    let text: string;
    try {
      text = decodeURIComponent(payload);
    } catch {
      text = payload;
    }
    data = Buffer.from(text, 'utf8').toString('base64');
  }
  return { mimeType, data };
}

function blockFromPart(part: ContentPart): ContentBlock {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: part.text };
    case 'input_image': {
      const inline = part.image_url === undefined ? undefined : parseDataUrl(part.image_url);
      if (inline !== undefined)
        return { type: 'image', data: inline.data, mimeType: inline.mimeType };
      if (part.image_url !== undefined)
        return {
          type: 'resource_link',
          uri: part.image_url,
          name: lastSegment(part.image_url) || part.image_url,
        };
      return { type: 'text', text: `image file: ${part.file_id ?? ''}` };
    }
    case 'input_file': {
      const inline = part.file_data === undefined ? undefined : parseDataUrl(part.file_data);
      if (inline !== undefined) {
        if (inline.mimeType.startsWith('audio/'))
          return { type: 'audio', data: inline.data, mimeType: inline.mimeType };
        const name = part.filename ?? 'attachment';
        return {
          type: 'resource',
          resource: {
            uri: `file:///${encodeURIComponent(name)}`,
            mimeType: inline.mimeType,
            blob: inline.data,
          },
        };
      }
      if (part.file_url !== undefined) {
        const name = part.filename ?? (lastSegment(part.file_url) || part.file_url);
        return { type: 'resource_link', uri: part.file_url, name };
      }
      return { type: 'text', text: `file: ${part.filename ?? part.file_id ?? ''}` };
    }
    default:
      return { type: 'text', text: JSON.stringify(part) };
  }
}

/**
 * A tool's output as MCP content: text as one text block; text parts as text; data-URL images as
 * image content; inline files as embedded blob resources (audio as audio content); files and images
 * at a URL as resource links.
 */
export function contentFromOutput(output: ToolOutput): ContentBlock[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  return output.map(blockFromPart);
}

/** The text of an output: itself when a string, else its text parts joined by "\n". */
export function textOfOutput(output: ToolOutput): string {
  if (typeof output === 'string') return output;
  const texts: string[] = [];
  for (const part of output) if (part.type === 'input_text') texts.push(part.text);
  return texts.join('\n');
}
