/**
 * The direct run of a `tool()` or `rawTool()` tool's function by a runner that owns the call's
 * context (the engine's call, the MCP server's served call): the function is called with that
 * context, and a value it returns is the call's final at once, with no Observable, Subscriber or
 * second context between them. A Promise, an async generator or an Observable it returns is
 * followed as `execute` follows it. The events are those of subscribing `execute`
 * (test/tool/direct-run.test.ts runs the same calls both ways).
 *
 * Registered by the Node entry (index.ts); a browser bundle, which does not, subscribes `execute`.
 *
 * @module
 */
import { isObservable, type Unsubscribable } from 'rxjs';
import type { CallContext } from './context.js';
import type { Tool, ToolCall, ToolResult } from './contract.js';
import {
  DIRECT,
  failure,
  FunctionCall,
  isAsyncGenerator,
  isThenable,
  type DirectRun,
  type EventSink,
} from './execution.js';

/** What a runner lends the direct run: its call's end, and a hold on what follows the function. */
export interface DirectHost extends EventSink {
  /** Ends the call: exactly one of `result` and `error` set; does nothing once it has ended. */
  end(result: ToolResult | undefined, error: Error | undefined): void;
  /** Keeps `following` to unsubscribe when the call ends; false (and unsubscribed) if it has. */
  hold(following: Unsubscribable): boolean;
}

/**
 * Runs `tool`'s function with `context` for `host`, returning whether the call still runs, or
 * undefined when `tool` has no direct run (it is not a `tool()` or `rawTool()` tool, or its
 * `execute` was replaced): the runner subscribes `execute` then.
 */
export type DirectRunner = (
  host: DirectHost,
  tool: Tool,
  call: ToolCall,
  context: CallContext,
) => boolean | undefined;

/** The {@link DirectRunner} of the Node entry. */
export const runDirect: DirectRunner = (host, tool, call, context) => {
  // Kept on the function: a tool whose execute was replaced (or wrapped) has none.
  const direct = (tool.execute as { [DIRECT]?: DirectRun })[DIRECT];
  if (direct === undefined) return undefined;
  const mapping = direct.mapping;
  let value: unknown;
  try {
    value = direct.run(context, call);
  } catch (err) {
    host.end(undefined, failure(mapping, err));
    return false;
  }
  if (!isFollowed(value)) {
    let result: ToolResult;
    try {
      result = mapping.final(value);
    } catch (err) {
      host.end(undefined, failure(mapping, err));
      return false;
    }
    host.end(result, undefined);
    return false;
  }
  const following = new FunctionCall(host, mapping);
  // The function has the runner's context: what follows it reports through that one.
  following.context = context;
  following.follow(value);
  return host.hold(following);
};

/** Whether a returned value is followed (an Observable, an async generator, a thenable) rather than final. */
function isFollowed(value: unknown): boolean {
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  return isObservable(value) || isAsyncGenerator(value) || isThenable(value);
}
