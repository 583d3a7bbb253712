/**
 * Where the engine and the MCP adapters find their spans: empty until the Node entry (index.ts)
 * or `registerOpenTelemetry` installs call-spans.ts (and mcp-spans.ts), so that a browser
 * bundle of `executeBatch` or `connectMcp` carries none of it unless the page asks for telemetry.
 *
 * @module
 */
import type { TraceContext } from '../contract.js';
import type { McpPeer, McpSpan } from './mcp-spans.js';
import type { OtelContext } from './open-telemetry.js';
import type { BatchSpans, SpannedBatch, SpannedJob, ToolSpan } from './call-spans.js';

/** What makes spans, once installed. */
export interface SpanMakers {
  batch<J extends SpannedJob>(options: SpannedBatch<J>): BatchSpans<J> | undefined;
  mcp(
    side: 'client' | 'server',
    tool: string,
    peer: McpPeer | (() => McpPeer),
    trace: TraceContext | undefined,
  ): McpSpan | undefined;
  tool(parent: OtelContext | undefined, job: SpannedJob): ToolSpan | undefined;
}

let makers: SpanMakers | undefined;

/** Installs what makes spans. */
export function installSpans(installed: SpanMakers): void {
  makers = installed;
}

/** The spans of a batch with `options`, or undefined (none installed, or none to make). */
export function spansFor<J extends SpannedJob>(
  options: SpannedBatch<J>,
): BatchSpans<J> | undefined {
  return makers === undefined ? undefined : makers.batch(options);
}

/** An MCP request's `tools/call` span (see mcp-spans.ts), or undefined. */
export function openMcpSpan(
  side: 'client' | 'server',
  tool: string,
  peer: McpPeer | (() => McpPeer),
  trace: TraceContext | undefined,
): McpSpan | undefined {
  return makers === undefined ? undefined : makers.mcp(side, tool, peer, trace);
}

/** The `execute_tool` span of a call run outside a batch (a served call), or undefined. */
export function toolSpanUnder(
  parent: OtelContext | undefined,
  job: SpannedJob,
): ToolSpan | undefined {
  return makers === undefined ? undefined : makers.tool(parent, job);
}
