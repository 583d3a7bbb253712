/**
 * The call context: one per call, made by whoever runs the call (the executor, the MCP server,
 * `tool()` for its function). A class rather than an object literal with closures, since one is
 * made per call on the hot path.
 *
 * @module
 */
import { CancelledError } from './errors.js';
import { recordOf, type Recordable, type Recorder } from './records.js';
import { withIdempotencyKey } from './replay.js';
import { progressResult } from './result.js';
import type { ProgressUpdate, Session, ToolCall, ToolContext, ToolResult } from './contract.js';

/** Where a context's progress goes. */
export interface ProgressSink {
  /** Receives one progress update, already normalised to a result. */
  progress(result: ToolResult): void;
}

/** What a {@link CallContext} is made with; every field is optional. */
export interface CallContextOptions {
  /** Receives each progress update, normalised to a result. */
  sink?: ProgressSink;
  /** Writes records; without one, `record` resolves at once. */
  recorder?: Recorder;
  /** The MCP session the call arrived on. */
  session?: Session;
  /**
   * An outer context to take `record` and `session` from, when this context serves a call that
   * another runner started (as `tool()` does for its function).
   */
  parent?: ToolContext;
}

/**
 * The standard {@link ToolContext}. Its AbortSignal is created only when a tool reads `signal`,
 * so a call that never looks costs nothing; {@link CallContext.cancel} aborts it, now or as soon as
 * it is created. {@link CallContext.finish} marks the call ended: later progress is dropped and a
 * later cancel does nothing, since the signal aborts on cancellation only.
 */
export class CallContext implements ToolContext {
  private ownCall: ToolCall;
  private keyed = false; // whether ownCall carries its idempotency key yet
  private readonly sink: ProgressSink | undefined;
  private readonly recorder: Recorder | undefined;
  private readonly parent: ToolContext | undefined;
  private readonly ownSession: Session | undefined;
  private controller: AbortController | undefined = undefined;
  private cancelReason: unknown = undefined;
  private state: 0 | 1 | 2 = 0; // running, cancelled, finished

  constructor(call: ToolCall, options: CallContextOptions = {}) {
    this.ownCall = call;
    this.sink = options.sink;
    this.recorder = options.recorder;
    this.parent = options.parent;
    this.ownSession = options.session;
  }

  /**
   * The call, with its idempotency key filled in (`idempotencyKeyOf`, qualified by the session id
   * under an MCP session): the call as given when it carries a key, otherwise a copy made the first
   * time it is read.
   */
  get call(): ToolCall & {
    /** The application's key, or else the call id. */
    readonly idempotencyKey: string;
  } {
    if (!this.keyed) {
      this.ownCall = withIdempotencyKey(this.ownCall, this.session?.id);
      this.keyed = true;
    }
    return this.ownCall as ToolCall & { readonly idempotencyKey: string };
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.state === 1) this.controller.abort(this.cancelReason);
    }
    return this.controller.signal;
  }

  get session(): Session | undefined {
    return this.ownSession ?? this.parent?.session;
  }

  /** Whether the call was cancelled. */
  get cancelled(): boolean {
    return this.state === 1;
  }

  progress(update: ProgressUpdate): void {
    if (this.state === 0 && this.sink !== undefined) this.sink.progress(progressResult(update));
  }

  record(details: Recordable): Promise<void> {
    if (this.parent !== undefined) return this.parent.record(details);
    const recorder = this.recorder;
    if (recorder === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const record = recordOf(details);
      if (record === undefined) throw new TypeError('record: details must implement recordNS()');
      resolve(recorder(record, this.call));
    });
  }

  /**
   * Cancels the call: aborts the signal (with a CancelledError unless a reason is given). Does
   * nothing once the call has ended or been cancelled.
   */
  cancel(reason?: unknown): void {
    if (this.state !== 0) return;
    this.state = 1;
    // Made here, not as a parameter default: a teardown cancels every call it ends, and an error
    // (with its stack) for each finished call would cost more than the call itself.
    const why = reason === undefined ? new CancelledError() : reason;
    this.cancelReason = why;
    this.controller?.abort(why);
  }

  /** Marks the call ended: progress is dropped from now on and the signal never aborts. */
  finish(): void {
    if (this.state === 0) this.state = 2;
  }
}
