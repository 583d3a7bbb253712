/**
 * One tools/call served: validate, run the tool, forward progress, map the outcome back.
 *
 * @module
 */
import type {
  CallToolResult,
  ProgressToken,
  ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { Subscription } from 'rxjs';
import { CallContext, type ProgressSink } from '../../lib/context.js';
import type { ProgressInfo, Session, Tool, ToolCall, ToolResult } from '../../lib/contract.js';
import { CancelledError, ToolPanicError } from '../../lib/errors.js';
import { errorResult } from '../../lib/result.js';
import type { ArgumentValidator } from '../../lib/validation/validation.js';
import { contentFromOutput, textOfOutput } from '../mcp-shared/mcp-content.js';
import { RemoteToolError } from '../mcp-shared/mcp-errors.js';

/** What one served call needs. */
export interface ServedCall {
  readonly tool: Tool;
  /** Checks the arguments first; undefined for a tool that checks its own (`tool()`). */
  readonly validator: ArgumentValidator | undefined;
  readonly call: ToolCall;
  readonly session: Session;
  /** Aborts when the client cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  readonly progressToken: ProgressToken | undefined;
  readonly notify: (notification: ServerNotification) => Promise<void>;
  /**
   * The tool is a remote MCP tool: its final result's details and its RemoteToolError's details
   * are the server's CallToolResult, sent as they came.
   */
  readonly passThrough?: boolean;
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  );
}

/** The MCP result of a final event: a remote tool's result as it came, else its output mapped. */
function resultOf(served: ServedCall, result: ToolResult): CallToolResult {
  if (served.passThrough === true && isCallToolResult(result.details)) return result.details;
  return { content: contentFromOutput(result.output) };
}

/** The MCP result of a failure: a remote tool's `isError` result as it came, else `failure`. */
function failureOf(served: ServedCall, err: unknown): CallToolResult {
  if (
    served.passThrough === true &&
    err instanceof RemoteToolError &&
    isCallToolResult(err.details)
  )
    return err.details;
  return failure(err instanceof Error ? err : new ToolPanicError(served.tool.name, err));
}

/** A failed call's MCP result: `Error: <message>` as text, `isError` set. */
export function failure(err: unknown): CallToolResult {
  return { content: contentFromOutput(errorResult(err).output), isError: true };
}

function progressInfoOf(details: unknown): ProgressInfo | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const progress = (details as { progress?: unknown }).progress;
  return typeof progress === 'number' && Number.isFinite(progress)
    ? (details as ProgressInfo)
    : undefined;
}

/**
 * Sends each progress update as a notifications/progress for the request's token: a ProgressInfo's
 * numbers as they are, otherwise one more than the last progress sent; the message is the info's,
 * or else the update's text. Send failures are dropped: progress is advisory.
 */
class ProgressForwarder implements ProgressSink {
  private last = 0;
  constructor(
    private readonly token: ProgressToken,
    private readonly notify: (notification: ServerNotification) => Promise<void>,
  ) {}

  progress(result: ToolResult): void {
    const info = progressInfoOf(result.details);
    const progress = info === undefined ? this.last + 1 : info.progress;
    const message = info?.message ?? textOfOutput(result.output);
    this.last = progress;
    const params: {
      progressToken: ProgressToken;
      progress: number;
      total?: number;
      message?: string;
    } = { progressToken: this.token, progress };
    if (info?.total !== undefined) params.total = info.total;
    if (message !== '') params.message = message;
    this.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  }
}

/**
 * Runs one served call to its MCP result. Resolves, never rejects: a validation problem, a
 * failure, a contract break and a cancellation are all `isError` results (the SDK sends nothing
 * for a cancelled request).
 */
export function runServedCall(served: ServedCall): Promise<CallToolResult> {
  try {
    served.validator?.parse(served.call.args);
  } catch (err) {
    return Promise.resolve(failure(err));
  }
  const { tool, call, signal } = served;
  return new Promise<CallToolResult>((resolve) => {
    const sink =
      served.progressToken === undefined
        ? undefined
        : new ProgressForwarder(served.progressToken, served.notify);
    const context = new CallContext(call, { sink, session: served.session });
    let subscription: Subscription | undefined;
    let settled = false;
    const settle = (result: CallToolResult): void => {
      if (settled) return;
      settled = true;
      context.finish();
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = (): void => {
      context.cancel();
      subscription?.unsubscribe();
      settle(failure(new CancelledError()));
    };
    if (signal.aborted) {
      settle(failure(new CancelledError()));
      return;
    }
    signal.addEventListener('abort', onAbort);
    try {
      subscription = tool.execute(call, context).subscribe({
        next: (event) => {
          if (event.final) settle(resultOf(served, event.result));
          else sink?.progress(event.result);
        },
        error: (err: unknown) => settle(failureOf(served, err)),
        // Completion after the final event is the normal end: build the error only for a
        // contract break, since an Error's stack costs more than the rest of a call.
        complete: () => {
          if (!settled)
            settle(
              failure(new ToolPanicError(tool.name, undefined, 'completed without a final event')),
            );
        },
      });
    } catch (err) {
      settle(failure(new ToolPanicError(tool.name, err)));
    }
    // A tool that ended synchronously is done; one that did not is unsubscribed by onAbort.
    if (settled) subscription?.unsubscribe();
  });
}
