import type { Observable } from 'rxjs';
import type { ToolResult } from '../../lib/contract.js';
import type { FunctionCallItem } from '../../lib/open-responses.js';
import { outputText } from '../../operators/batch-state.js';
import type { ExecutionErrorEvent, ExecutionResultEvent } from '../../operators/job.js';
import type { LoopEnd, LoopEvent } from '../../operators/loop-events.js';
import {
  APPROVAL_EVENT,
  PROGRESS_ACTIVITY,
  QUESTION_EVENT,
  type AgUiEvent,
  type ProgressContent,
} from './ag-ui-event.js';
import {
  encodeLoop,
  LoopEncoder,
  messageOf,
  modelOutput,
  type ApprovalAnswer,
  type WireQuestion,
} from './loop-encoder.js';

/** The run the events belong to, as the client's `RunAgentInput` named it. */
export interface AgUiRunOptions {
  /** The conversation: `RunAgentInput.threadId`. */
  threadId: string;
  /** This run: `RunAgentInput.runId`. */
  runId: string;
}

/**
 * Writes a model loop's events as an AG-UI 1.0 run, for `@ag-ui/client`'s `HttpAgent` and the
 * fronts built on it (CopilotKit).
 *
 * ```
 *   loop     turn-start  text-delta "Hi"  call-start r1  call r1  call-event r1 (final)  turn-end  loop-end
 *
 *            toAgUiEvents(loop$, { threadId, runId })
 *
 *   events   RUN_STARTED  STEP_STARTED  TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT "Hi"  TEXT_MESSAGE_END,
 *            TOOL_CALL_START r1  TOOL_CALL_END r1  TOOL_CALL_RESULT r1  STEP_FINISHED  RUN_FINISHED
 * ```
 *
 * The mapping: the run is the loop (`RUN_STARTED`, then `RUN_FINISHED` with a success outcome and
 * `result: { reason, turns }`, or `RUN_ERROR` with the error's message and `code`); each turn is a
 * step named `turn <n>`; the model's text is a text message (id as the model named it), ended
 * once the model goes on to a call, another text or the turn's end; each call is a tool call
 * (`TOOL_CALL_START`, `TOOL_CALL_ARGS` as the model writes them, `TOOL_CALL_END`) of the turn's
 * assistant message (its first text, else `<runId>-turn-<n>`); every call's final event is a
 * `TOOL_CALL_RESULT` whose content is what the model reads, as text (a failure or a refusal as
 * `Error: <message>`), so the thread a client sends back holds what the model saw.
 *
 * Progress is an `ACTIVITY_SNAPSHOT` (`activityType` `agenttool.progress`, message id
 * `<callId>-progress`, each update replacing the last; {@link ProgressContent}): AG-UI 1.0's
 * activities are structured progress that is not conversation content, kept in the message
 * sequence for a UI to render; state events are the agent's shared state, and a `CUSTOM` event
 * means nothing to a client that does not know it.
 *
 * Approvals and questions are `CUSTOM` events (`agenttool.approval`: the call, then the call with
 * its `answer`; `agenttool.question`: a {@link WireQuestion}), not interrupts: an AG-UI 1.0
 * interrupt ends the run (`RUN_FINISHED` with an interrupt outcome) and a new run resumes it,
 * while the loop waits within the run for the application's `approve` or elicitor, whose answer
 * comes back some other way (see `approvalResponses`, or the application's own request).
 *
 * Unsubscribing unsubscribes the loop, which cancels its running calls.
 *
 * @see {@link agUiResponse} and {@link pipeAgUiEvents} to serve it over HTTP.
 * @param loop$ The loop's events, as `agentLoop` emits them.
 * @param run The thread and run ids from the client's request.
 * @return The run's events; each subscription runs the loop once.
 */
export function toAgUiEvents(
  loop$: Observable<LoopEvent>,
  run: AgUiRunOptions,
): Observable<AgUiEvent> {
  return encodeLoop(loop$, () => new AgUiEncoder(run));
}

/** AG-UI's events for each step of a loop. */
class AgUiEncoder extends LoopEncoder<AgUiEvent> {
  private turn = 0;
  private openStep: string | undefined;
  /** The assistant message this turn's calls belong to: its first text, else one named for it. */
  private turnMessage: string | undefined;
  /** The arguments each call being written has sent so far. */
  private readonly sent = new Map<string, string>();
  private finished = false;

  constructor(private readonly run: AgUiRunOptions) {
    super();
  }

  protected opened(): void {
    const { threadId, runId } = this.run;
    this.emit({ type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' });
  }

  protected turnStarted(turn: number): void {
    this.closeStep();
    this.turn = turn;
    this.turnMessage = undefined;
    this.openStep = `turn ${turn}`;
    this.emit({ type: 'STEP_STARTED', stepName: this.openStep });
  }

  protected textStarted(messageId: string): void {
    this.turnMessage ??= messageId;
    this.emit({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
  }

  protected textDelta(messageId: string, delta: string): void {
    this.emit({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta });
  }

  protected textEnded(messageId: string): void {
    this.emit({ type: 'TEXT_MESSAGE_END', messageId });
  }

  protected callStarted(toolCallId: string, toolCallName: string): void {
    this.sent.set(toolCallId, '');
    this.emit({
      type: 'TOOL_CALL_START',
      toolCallId,
      toolCallName,
      parentMessageId: this.parent(),
    });
  }

  protected callDelta(toolCallId: string, delta: string): void {
    this.sent.set(toolCallId, (this.sent.get(toolCallId) ?? '') + delta);
    this.emit({ type: 'TOOL_CALL_ARGS', toolCallId, delta });
  }

  protected callWritten(call: FunctionCallItem, streamed: boolean): void {
    const toolCallId = call.call_id;
    if (!streamed) this.callStarted(toolCallId, call.name);
    // What the deltas left out (a provider that sends the arguments whole at the end).
    const sent = this.sent.get(toolCallId) ?? '';
    this.sent.delete(toolCallId);
    const rest = call.arguments.startsWith(sent) ? call.arguments.slice(sent.length) : '';
    if (rest !== '') this.emit({ type: 'TOOL_CALL_ARGS', toolCallId, delta: rest });
    this.emit({ type: 'TOOL_CALL_END', toolCallId });
  }

  protected approvalAsked(call: FunctionCallItem): void {
    this.emit({ type: 'CUSTOM', name: APPROVAL_EVENT, value: approvalValue(call) });
  }

  protected approvalGiven(call: FunctionCallItem, answer: ApprovalAnswer): void {
    this.emit({ type: 'CUSTOM', name: APPROVAL_EVENT, value: { ...approvalValue(call), answer } });
  }

  protected question(question: WireQuestion): void {
    this.emit({ type: 'CUSTOM', name: QUESTION_EVENT, value: question });
  }

  protected progress(call: FunctionCallItem, update: ToolResult): void {
    this.emit({
      type: 'ACTIVITY_SNAPSHOT',
      messageId: `${call.call_id}-progress`,
      activityType: PROGRESS_ACTIVITY,
      content: progressContent(call, update),
    });
  }

  protected result(call: FunctionCallItem, event: ExecutionResultEvent): void {
    this.toolResult(call, event);
  }

  protected refusal(call: FunctionCallItem, event: ExecutionErrorEvent): void {
    this.toolResult(call, event);
  }

  protected failure(call: FunctionCallItem, event: ExecutionErrorEvent): void {
    this.toolResult(call, event);
  }

  protected turnEnded(): void {
    this.closeStep();
  }

  protected loopEnded(event: LoopEnd<unknown>): void {
    this.finish({ reason: event.reason, turns: event.turns });
  }

  protected completed(): void {
    if (!this.finished) this.finish(undefined);
  }

  protected failed(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    const message = messageOf(error);
    this.emit(
      typeof code === 'string'
        ? { type: 'RUN_ERROR', message, code }
        : { type: 'RUN_ERROR', message },
    );
  }

  private parent(): string {
    return (this.turnMessage ??= `${this.run.runId}-turn-${this.turn}`);
  }

  private toolResult(call: FunctionCallItem, event: ExecutionResultEvent | ExecutionErrorEvent) {
    this.emit({
      type: 'TOOL_CALL_RESULT',
      messageId: `${call.call_id}-result`,
      toolCallId: call.call_id,
      content: outputText(modelOutput(event)),
      role: 'tool',
    });
  }

  private closeStep(): void {
    if (this.openStep === undefined) return;
    this.emit({ type: 'STEP_FINISHED', stepName: this.openStep });
    this.openStep = undefined;
  }

  /** The run's end: what the loop left open (a call never finished, a step) closed first. */
  private finish(result: { reason: string; turns: number } | undefined): void {
    for (const toolCallId of this.writing.keys()) this.emit({ type: 'TOOL_CALL_END', toolCallId });
    this.writing.clear();
    this.closeStep();
    this.finished = true;
    const { threadId, runId } = this.run;
    const end = { type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' } } as const;
    this.emit(result === undefined ? end : { ...end, result });
  }
}

function approvalValue(call: FunctionCallItem) {
  return { toolCallId: call.call_id, toolName: call.name, arguments: call.arguments };
}

function progressContent(call: FunctionCallItem, update: ToolResult): ProgressContent {
  const toolCallId = call.call_id;
  const toolName = call.name;
  const text = outputText(update.output);
  const info = update.details as { progress?: unknown; total?: unknown } | null | undefined;
  // Written out rather than spread: progress comes often.
  if (typeof info !== 'object' || info === null || typeof info.progress !== 'number')
    return { toolCallId, toolName, text };
  const progress = info.progress;
  return typeof info.total === 'number'
    ? { toolCallId, toolName, text, progress, total: info.total }
    : { toolCallId, toolName, text, progress };
}
