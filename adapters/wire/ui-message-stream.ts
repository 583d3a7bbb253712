import type { Observable } from 'rxjs';
import type { ToolResult } from '../../lib/contract.js';
import type { FunctionCallItem } from '../../lib/open-responses.js';
import type { ExecutionErrorEvent, ExecutionResultEvent } from '../../operators/job.js';
import type { LoopEnd, LoopEvent } from '../../operators/loop-events.js';
import {
  encodeLoop,
  LoopEncoder,
  messageOf,
  modelOutput,
  type ApprovalAnswer,
  type WireQuestion,
} from './loop-encoder.js';
import {
  QUESTION_DATA_TYPE,
  type UIFinishReason,
  type UIMessageChunk,
} from './ui-message-chunk.js';

/** How {@link toUIMessageStream} writes the message. Every field is optional. */
export interface UIMessageStreamOptions {
  /** The assistant message's id, sent on `start`; by default the client makes one. */
  messageId?: string | undefined;
  /**
   * Sends tool parts as `dynamic-tool` (name in `toolName`, types unknown to the client) rather
   * than `tool-<name>`; default false, for a client that declares its tools' types.
   */
  dynamic?: boolean | undefined;
  /**
   * What a tool part's `output` is, for each progress update and for the final result: by default
   * what the model reads (the result's `output`, a string or content parts, and for the final
   * result what a reviewer added), never its `details`, which are the application's. Return
   * something else to show `details` or `structured` to the client.
   */
  toolOutput?:
    ((result: ToolResult, call: FunctionCallItem, final: boolean) => unknown) | undefined;
}

/**
 * Writes a model loop's events as the AI SDK's UI message stream: one assistant message, a step
 * per turn, its text and tool parts, for `useChat` and `readUIMessageStream` (package `ai`, 7).
 *
 * ```
 *   loop     turn-start  text-delta "Hi"  call-start r1  call r1  call-event r1 (final)  turn-end  loop-end
 *
 *            toUIMessageStream(loop$)
 *
 *   chunks   start  start-step  text-start, text-delta "Hi"  text-end, tool-input-start r1
 *            tool-input-available r1  tool-output-available r1  finish-step  finish
 * ```
 *
 * The mapping: each turn is a step (`start-step`, `finish-step`); the model's text is a text part
 * (`text-start`, `text-delta`, `text-end` once the model goes on to a call, another text or the
 * turn's end); a call is a tool part whose input streams (`tool-input-start`, `tool-input-delta`)
 * and arrives parsed (`tool-input-available`; arguments that are not JSON give
 * `tool-input-error`, the text as `input`); an approval is `tool-approval-request` (its
 * `approvalId` is the call id) and `tool-approval-response`; progress is
 * `tool-output-available` with `preliminary: true`, the final result the same without it; a
 * failure is `tool-output-error` (the error's message), a refused call `tool-output-denied`; a
 * tool's question is a `data-agenttool-question` part ({@link WireQuestion}) whose `id` the
 * answer reuses, so the part shows the answer in place. A loop that errors ends the stream with
 * an `error` chunk (its message) and no `finish`; the Observable itself completes.
 *
 * Unsubscribing unsubscribes the loop, which cancels its running calls.
 *
 * ## Example
 *
 * ```ts
 * toUIMessageStream(agentLoop(request, options)).subscribe((chunk) => socket.send(JSON.stringify(chunk)));
 * ```
 *
 * @see {@link uiMessageStreamResponse} and {@link pipeUIMessageStream} to serve it over HTTP.
 * @see {@link approvalResponses} for the answers a client sends back.
 * @param loop$ The loop's events, as `agentLoop` emits them.
 * @param options The message's id, dynamic tool parts, the output a tool part shows.
 * @return The stream's chunks; each subscription runs the loop once.
 */
export function toUIMessageStream(
  loop$: Observable<LoopEvent>,
  options: UIMessageStreamOptions = {},
): Observable<UIMessageChunk> {
  return encodeLoop(loop$, () => new UIMessageEncoder(options));
}

const finishReasons: Record<LoopEnd<unknown>['reason'], UIFinishReason> = {
  done: 'stop',
  // The last turn made calls the model never saw answered, as the AI SDK's own step limit.
  'max-turns': 'tool-calls',
  stopped: 'tool-calls',
  // The loop's signal aborted it, the calls it had running cancelled.
  cancelled: 'interrupted',
};

/** The AI SDK's chunks for each step of a loop. */
class UIMessageEncoder extends LoopEncoder<UIMessageChunk> {
  private finished = false;
  private readonly dynamic: { dynamic?: true };

  constructor(private readonly options: UIMessageStreamOptions) {
    super();
    this.dynamic = options.dynamic === true ? { dynamic: true } : {};
  }

  protected opened(): void {
    const id = this.options.messageId;
    this.emit(id === undefined ? { type: 'start' } : { type: 'start', messageId: id });
  }

  protected turnStarted(): void {
    this.emit({ type: 'start-step' });
  }

  protected textStarted(id: string): void {
    this.emit({ type: 'text-start', id });
  }

  protected textDelta(id: string, delta: string): void {
    this.emit({ type: 'text-delta', id, delta });
  }

  protected textEnded(id: string): void {
    this.emit({ type: 'text-end', id });
  }

  protected callStarted(toolCallId: string, toolName: string): void {
    this.emit({ type: 'tool-input-start', toolCallId, toolName, ...this.dynamic });
  }

  protected callDelta(toolCallId: string, inputTextDelta: string): void {
    this.emit({ type: 'tool-input-delta', toolCallId, inputTextDelta });
  }

  protected callWritten(call: FunctionCallItem): void {
    const head = { toolCallId: call.call_id, toolName: call.name, ...this.dynamic };
    const parsed = parseArguments(call.arguments);
    this.emit(
      'input' in parsed
        ? { type: 'tool-input-available', ...head, input: parsed.input }
        : { type: 'tool-input-error', ...head, input: call.arguments, errorText: parsed.error },
    );
  }

  protected approvalAsked(call: FunctionCallItem): void {
    this.emit({
      type: 'tool-approval-request',
      approvalId: call.call_id,
      toolCallId: call.call_id,
    });
  }

  protected approvalGiven(call: FunctionCallItem, answer: ApprovalAnswer): void {
    const reason = answer.reason ?? answer.note;
    this.emit({
      type: 'tool-approval-response',
      approvalId: call.call_id,
      approved: answer.approved,
      ...(reason !== undefined && { reason }),
    });
  }

  protected question(data: WireQuestion): void {
    this.emit({ type: QUESTION_DATA_TYPE, id: data.id, data });
  }

  protected progress(call: FunctionCallItem, update: ToolResult): void {
    const output = this.outputOf(update, call, false);
    const toolCallId = call.call_id;
    // Written out rather than spread: progress comes often, and the key order is the wire's.
    this.emit(
      this.options.dynamic === true
        ? { type: 'tool-output-available', toolCallId, dynamic: true, output, preliminary: true }
        : { type: 'tool-output-available', toolCallId, output, preliminary: true },
    );
  }

  protected result(call: FunctionCallItem, event: ExecutionResultEvent): void {
    const output =
      this.options.toolOutput === undefined
        ? modelOutput(event)
        : this.options.toolOutput(event.result, call, true);
    this.emit({ ...this.outputHead(call), output });
  }

  protected refusal(call: FunctionCallItem): void {
    this.emit({ type: 'tool-output-denied', toolCallId: call.call_id });
  }

  protected failure(call: FunctionCallItem, event: ExecutionErrorEvent): void {
    const errorText = messageOf(event.error);
    this.emit({ type: 'tool-output-error', toolCallId: call.call_id, errorText, ...this.dynamic });
  }

  protected turnEnded(): void {
    this.emit({ type: 'finish-step' });
  }

  protected loopEnded(event: LoopEnd<unknown>): void {
    this.finished = true;
    this.emit({ type: 'finish', finishReason: finishReasons[event.reason] });
  }

  protected completed(): void {
    if (!this.finished) this.emit({ type: 'finish' });
  }

  protected failed(error: unknown): void {
    this.emit({ type: 'error', errorText: messageOf(error) });
  }

  private outputHead(call: FunctionCallItem) {
    return { type: 'tool-output-available', toolCallId: call.call_id, ...this.dynamic } as const;
  }

  private outputOf(result: ToolResult, call: FunctionCallItem, final: boolean): unknown {
    const custom = this.options.toolOutput;
    return custom === undefined ? result.output : custom(result, call, final);
  }
}

/** A call's arguments as a value (`""` is `{}`), or why they are not JSON. */
function parseArguments(text: string): { input: unknown } | { error: string } {
  if (text.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: `invalid arguments: not valid JSON: ${messageOf(error)}` };
  }
}
