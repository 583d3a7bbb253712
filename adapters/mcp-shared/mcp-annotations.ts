/**
 * Annotations in both directions. MCP's hints are hints: the client reports what the server stated
 * (with MCP's defaults where they mean something) and nothing else reads them as permission; the server serves exactly the hints a tool states.
 *
 * @module
 */
import type { McpTool, ToolAnnotations } from './mcp-types.js';
import type { Annotations } from '../../lib/contract.js';

/**
 * A remote tool's annotations as the server stated them, with MCP's defaults where a default means
 * something. When the server sends an annotations block: `readOnlyHint` (default false) and
 * `openWorldHint` (default true) are always present; `destructiveHint` (default true) and
 * `idempotentHint` (default false) take their defaults only for a tool that is not read-only,
 * since MCP gives them meaning only then; a read-only tool carries them only as the server stated
 * them. When the server sends no block, the tool states nothing (undefined, or the title alone).
 * Only the five known fields are read, so nothing else a server puts there reaches the application.
 */
export function annotationsFromMcp(
  tool: Pick<McpTool, 'annotations' | 'title'>,
): Annotations | undefined {
  const block = tool.annotations;
  const title = block?.title ?? tool.title;
  if (block === undefined) return title === undefined ? undefined : Object.freeze({ title });
  const annotations: Annotations = {};
  if (title !== undefined) annotations.title = title;
  const readOnly = block.readOnlyHint === true;
  annotations.readOnlyHint = readOnly;
  if (typeof block.destructiveHint === 'boolean')
    annotations.destructiveHint = block.destructiveHint;
  else if (!readOnly) annotations.destructiveHint = true;
  if (typeof block.idempotentHint === 'boolean') annotations.idempotentHint = block.idempotentHint;
  else if (!readOnly) annotations.idempotentHint = false;
  annotations.openWorldHint = block.openWorldHint !== false;
  return Object.freeze(annotations);
}

/**
 * The annotations block to serve for a tool's annotations: each hint the tool states, and none it
 * does not, so an unstated hint keeps MCP's default at the client rather than becoming a claim of
 * harmlessness. Undefined when the tool states none.
 */
export function annotationsToMcp(
  annotations: Annotations | undefined,
): ToolAnnotations | undefined {
  if (annotations === undefined) return undefined;
  const block: ToolAnnotations = {};
  let stated = false;
  if (typeof annotations.title === 'string') {
    block.title = annotations.title;
    stated = true;
  }
  for (const hint of [
    'readOnlyHint',
    'destructiveHint',
    'idempotentHint',
    'openWorldHint',
  ] as const) {
    const value = annotations[hint];
    if (typeof value === 'boolean') {
      block[hint] = value;
      stated = true;
    }
  }
  return stated ? block : undefined;
}
