/**
 * The MCP types both adapters read, from the protocol's own schemas (`@modelcontextprotocol/core`,
 * which the SDK's client and server packages both install), so that neither adapter needs the
 * other's package for its types.
 *
 * @module
 */
import type { z } from 'zod';
import type {
  CallToolResultSchema,
  ContentBlockSchema,
  ToolAnnotationsSchema,
  ToolSchema,
} from '@modelcontextprotocol/core';

/** A `tools/call` result. */
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
/** One block of a result's content. */
export type ContentBlock = z.infer<typeof ContentBlockSchema>;
/** A `tools/list` entry. */
export type McpTool = z.infer<typeof ToolSchema>;
/** A tool's annotation hints. */
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;
