/**
 * Where the engine and the MCP adapters find their spans: empty until the Node entry (index.ts)
 * or `registerOpenTelemetry` installs call-spans.ts (and lib/mcp-spans.ts), so that a browser
 * bundle of `executeBatch` or `connectMcp` carries none of it unless the page asks for telemetry.
 *
 * @module
 */
import type { TraceContext } from '../../lib/contract.js';
import type { McpPeer, McpSpan } from '../../lib/mcp-spans.js';
import type { OtelContext } from '../../lib/telemetry.js';
import type { ExecuteOptions, Job } from '../job.js';
import type { BatchSpans, ToolSpan } from './call-spans.js';

/** What makes spans, once installed. */
export interface SpanMakers {
  batch(options: ExecuteOptions): BatchSpans | undefined;
  mcp(
    side: 'client' | 'server',
    tool: string,
    peer: McpPeer | (() => McpPeer),
    trace: TraceContext | undefined,
  ): McpSpan | undefined;
  tool(parent: OtelContext | undefined, job: Job): ToolSpan | undefined;
}

let makers: SpanMakers | undefined;

/** Installs what makes spans. */
export function installSpans(installed: SpanMakers): void {
  makers = installed;
}

/** The spans of a batch with `options`, or undefined (none installed, or none to make). */
export function spansFor(options: ExecuteOptions): BatchSpans | undefined {
  return makers === undefined ? undefined : makers.batch(options);
}

/** An MCP request's `tools/call` span (see lib/mcp-spans.ts), or undefined. */
export function openMcpSpan(
  side: 'client' | 'server',
  tool: string,
  peer: McpPeer | (() => McpPeer),
  trace: TraceContext | undefined,
): McpSpan | undefined {
  return makers === undefined ? undefined : makers.mcp(side, tool, peer, trace);
}

/** The `execute_tool` span of a call run outside a batch (a served call), or undefined. */
export function toolSpanUnder(parent: OtelContext | undefined, job: Job): ToolSpan | undefined {
  return makers === undefined ? undefined : makers.tool(parent, job);
}
