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
import { UnsubscriptionError, type Observer, type Subscription } from 'rxjs';
import { CallContext, type ProgressSink } from '../../lib/context.js';
import type {
  ProgressInfo,
  Session,
  Tool,
  ToolCall,
  ToolEvent,
  ToolResult,
} from '../../lib/contract.js';
import { CancelledError, describeThrown, ToolPanicError } from '../../lib/errors.js';
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
  /** Told of a fault that belongs to no result: the tool's teardown threw. Must not throw. */
  readonly report: (error: Error) => void;
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

/** The ToolPanicError for a teardown of `tool` that threw `thrown` (rxjs wraps it). */
function teardownError(tool: string, thrown: unknown): ToolPanicError {
  const cause =
    thrown instanceof UnsubscriptionError && thrown.errors.length > 0 ? thrown.errors[0] : thrown;
  return new ToolPanicError(tool, cause, `teardown threw: ${describeThrown(cause)}`);
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
 * for a cancelled request). The tool is unsubscribed as soon as its call ends (final, error,
 * completion or cancellation); a teardown that throws then is caught and passed to
 * `served.report`, never thrown into the tool's timers or the request's abort signal, and the
 * call's result stands. A call that ends before this returns (a synchronous tool) returns its
 * result itself rather than a Promise of it.
 */
export function runServedCall(served: ServedCall): CallToolResult | Promise<CallToolResult> {
  try {
    served.validator?.parse(served.call.args);
  } catch (err) {
    return failure(err);
  }
  if (served.signal.aborted) return failure(new CancelledError());
  return new ServedRun(served).start();
}

/**
 * One served call's state: the observer of the tool's events, the listener of the request's
 * abort signal (`handleEvent`) and the settling of its result at once. A class with methods rather
 * than closures, since one is made per call.
 */
class ServedRun implements Observer<ToolEvent>, EventListenerObject {
  private readonly context: CallContext;
  private readonly sink: ProgressForwarder | undefined;
  private subscription: Subscription | undefined = undefined;
  private result: CallToolResult | undefined = undefined;
  private resolve: ((result: CallToolResult) => void) | undefined = undefined;

  constructor(private readonly served: ServedCall) {
    this.sink =
      served.progressToken === undefined
        ? undefined
        : new ProgressForwarder(served.progressToken, served.notify);
    this.context = new CallContext(served.call, { sink: this.sink, session: served.session });
  }

  start(): CallToolResult | Promise<CallToolResult> {
    const { tool, call, signal } = this.served;
    try {
      this.subscription = tool.execute(call, this.context).subscribe(this);
    } catch (err) {
      // A tool that ended synchronously and whose teardown threw lands here after its final.
      if (this.result !== undefined) this.served.report(teardownError(tool.name, err));
      else this.settle(failure(new ToolPanicError(tool.name, err)));
    }
    // A tool that ended synchronously is done; one that did not is unsubscribed when it ends.
    if (this.result !== undefined) {
      this.end();
      return this.result;
    }
    // Only a call still running needs to hear of an abort (one that came while the tool started
    // is taken now). The listener stays: once the request is answered the SDK drops its signal,
    // which never aborts after that, and a late abort would find the call settled anyway.
    if (signal.aborted) {
      this.handleEvent();
      return this.result!;
    }
    signal.addEventListener('abort', this);
    return new Promise<CallToolResult>((resolve) => {
      if (this.result !== undefined) resolve(this.result);
      else this.resolve = resolve;
    });
  }

  next(event: ToolEvent): void {
    if (!event.final) {
      this.sink?.progress(event.result);
      return;
    }
    this.settle(resultOf(this.served, event.result));
    this.end();
  }

  error(err: unknown): void {
    this.settle(failureOf(this.served, err));
    this.end();
  }

  complete(): void {
    // Completion after the final event is the normal end: build the error only for a contract
    // break, since an Error's stack costs more than the rest of a call.
    if (this.result === undefined)
      this.settle(
        failure(
          new ToolPanicError(this.served.tool.name, undefined, 'completed without a final event'),
        ),
      );
    this.end();
  }

  /** The request's signal aborted: the client cancelled, or the connection closed. */
  handleEvent(): void {
    this.context.cancel();
    this.settle(failure(new CancelledError()));
    this.end();
  }

  private settle(result: CallToolResult): void {
    if (this.result !== undefined) return;
    this.result = result;
    this.context.finish();
    this.resolve?.(result);
  }

  /** Unsubscribing runs the tool's teardown: whatever it throws stays here. */
  private end(): void {
    const current = this.subscription;
    if (current === undefined || current.closed) return;
    try {
      current.unsubscribe();
    } catch (err) {
      this.served.report(teardownError(this.served.tool.name, err));
    }
  }
}
