/**
 * A `tools/call` request as the CallRouter (call-router.ts) has read it, and the served call its
 * routes make of it (`servedOf`): the tool, with what the request that speaks for the call gives.
 *
 * @module
 */
import type {
  CallToolRequest,
  CallToolResult,
  ClientCapabilities,
  Server,
} from '@modelcontextprotocol/server';
import { traceOf } from '../../lib/trace-context.js';
import type { TaskRelay } from '../mcp-shared/task-relay.js';
import { failure, type ServedCall } from './served-call.js';
import type { Entry } from './served-list.js';
import type { McpServerOptions } from './server-options.js';

/** What the request that speaks for a call gives it: where its progress, questions, logs go. */
export type Speaker = Pick<
  ServedCall,
  'session' | 'signal' | 'progressToken' | 'notify' | 'elicitor' | 'log' | 'sendRecords'
> &
  Partial<Pick<ServedCall, 'modes' | 'roots'>>;

/** A call as the router has read it: its tool, its arguments' text, its request's `_meta`. */
export interface Routed {
  readonly entry: Entry;
  readonly name: string;
  readonly text: string;
  readonly meta: CallToolRequest['params']['_meta'];
  readonly call: ServedCall['call'];
  /** Whether the request is of MCP 2026-07-28 or later (era.ts), read once. */
  readonly modern: boolean;
  /** The client capabilities the request speaks with (era.ts), read once. */
  readonly capabilities: ClientCapabilities | undefined;
}

/**
 * A served call's result, an upstream refusal (see `runServedCall`) as an `isError` result: a
 * call that became a task has no request left to answer with the error.
 */
export function refusalAsFailure(
  result: CallToolResult | Promise<CallToolResult>,
): Promise<CallToolResult> {
  return Promise.resolve(result).catch((refusal: unknown) => failure(refusal));
}

/** The served call: its id, its arguments' text, and the trace context its request carries. */
export function callOf(id: string, args: string, meta: unknown): ServedCall['call'] {
  const trace = traceOf(meta);
  return trace === undefined ? { id, args } : { id, args, trace };
}

/** The word on tasks of a proxied call whose client takes none from this server (task-relay.ts). */
const NO_TASKS: TaskRelay = Object.freeze({ declares: false, upstreamTask: () => undefined });

/** What a call of `routed` needs, with what the request that speaks for it gives: one object. */
export function servedOf(
  routed: Routed,
  speaker: Speaker,
  server: Server,
  options: McpServerOptions,
  report: (error: Error) => void,
): ServedCall {
  const { entry } = routed;
  return {
    tool: entry.tool,
    validator: entry.validator,
    call: routed.call,
    session: speaker.session,
    signal: speaker.signal,
    progressToken: speaker.progressToken,
    notify: speaker.notify,
    elicitor: speaker.elicitor,
    modes: speaker.modes,
    roots: speaker.roots,
    log: speaker.log,
    report,
    passThrough: entry.tool.remote !== undefined,
    taskRelay: entry.tool.remote === undefined ? undefined : NO_TASKS,
    sendRecords: speaker.sendRecords,
    recorder: options.recorder,
    maxRecords: options.maxRecords,
    maxRecordBytes: options.maxRecordBytes,
    maxQuestions: options.maxQuestions,
    peer: () => ({
      protocolVersion: server.getNegotiatedProtocolVersion(),
      sessionId: speaker.session?.id,
    }),
  };
}
