/**
 * A batch's OpenTelemetry spans and durations: one `execute_tool {name}` span per job that gets a
 * final event, per the GenAI semantic conventions (docs/telemetry.md). Made by the engine only
 * when the application has registered a tracer or a meter provider; otherwise the engine holds
 * undefined and pays one check per hook.
 *
 * A call's span starts when its approval is asked, or else when it starts; it ends with its final
 * event (its status and `error.type` from its error), or when the batch is unsubscribed (as
 * cancelled). A job that ends before it starts (refused, its own signal, the batch aborted) still
 * gets its span, started and ended at once. The tool runs in the span's context, and its call's
 * `trace` names the span, so a remote tool's request carries it on.
 *
 * @module
 */
import type {
  ElicitRequest,
  ElicitResult,
  Tool,
  ToolCall,
  ToolResult,
  TraceContext,
} from '../contract.js';
import { CancelledError } from '../errors.js';
import {
  activeTelemetry,
  continuing,
  errorType,
  now,
  recordedOutput,
  SPAN_KIND,
  STATUS_ERROR,
  traceContextOf,
  type ActiveTelemetry,
  type OtelAttributes,
  type OtelContext,
  type OtelSpan,
} from './open-telemetry.js';
import { installSpans } from './span-hook.js';
import { McpSpan } from './mcp-spans.js';

/** What a span is made for: a call and its tool (a batch's `Job`, operators/job.ts, is one). */
export interface SpannedJob {
  readonly tool: Tool;
  readonly call: ToolCall;
}

/** What a batch's spans record: its `telemetry` option (`TelemetryOptions`, operators/job.ts). */
export interface SpanOptions<J extends SpannedJob = SpannedJob> {
  readonly recordInputs?: boolean | undefined;
  readonly recordOutputs?: boolean | undefined;
  readonly onSpan?:
    ((job: J, index: number, span: { traceId: string; spanId: string }) => void) | undefined;
}

/** What a batch starts in a call's span: its run (operators/internal/call-run.ts). */
export interface Startable {
  start(): void;
}

/** The options a batch's spans are made from (a batch's `ExecuteOptions` is one). */
export interface SpannedBatch<J extends SpannedJob = SpannedJob> {
  readonly telemetry?: SpanOptions<J> | false | undefined;
}

/** Has the engine make spans from now on (see span-hook.ts). */
export function installCallSpans(): void {
  installSpans({
    batch: batchSpans,
    mcp: (side, tool, peer, trace) => McpSpan.open(side, tool, peer, trace),
    tool: (parent, job) => ToolSpan.under(parent, job),
  });
}

/**
 * The spans of one batch, or undefined when the batch makes none: telemetry turned off for it,
 * the API not found, or no provider registered.
 */
export function batchSpans<J extends SpannedJob>(
  options: SpannedBatch<J>,
): BatchSpans<J> | undefined {
  const telemetry = options.telemetry;
  if (telemetry === false) return undefined;
  const active = activeTelemetry();
  if (active === undefined) return undefined;
  // The context active where the batch is subscribed is its calls' parent.
  return new BatchSpans(active, active.otel.context.active(), telemetry ?? {});
}

/**
 * The open spans of a batch, by job index: one made while no other was open is held in `first`
 * (a batch of synchronous calls never has more than that one), the others in `rest`. A Map that
 * one span joins and leaves per call would make its table anew each time it empties.
 */
export class BatchSpans<J extends SpannedJob = SpannedJob> {
  private firstIndex = -1;
  private first: ToolSpan | undefined = undefined;
  private readonly rest = new Map<number, ToolSpan>();

  constructor(
    private readonly active: ActiveTelemetry,
    private readonly parent: OtelContext,
    private readonly options: SpanOptions<J>,
  ) {}

  /** Job `index`'s span, started now when it has none yet. */
  private spanOf(index: number, job: J): ToolSpan {
    const open = this.find(index);
    if (open !== undefined) return open;
    // A call that names its trace (an MCP server's request, a fleet's job) is continued there.
    const parent = continuing(this.active.otel, this.parent, job.call.trace);
    const made = new ToolSpan(this.active, job, parent, this.options);
    const onSpan = this.options.onSpan;
    if (onSpan !== undefined && made.span !== undefined) {
      const { traceId, spanId } = made.span.spanContext();
      try {
        onSpan(job, index, { traceId, spanId });
      } catch {
        // The application's hook: it has no say in the call.
      }
    }
    if (this.first === undefined && this.rest.size === 0) {
      this.firstIndex = index;
      this.first = made;
    } else this.rest.set(index, made);
    return made;
  }

  /** Job `index`'s open span, if any. */
  private find(index: number): ToolSpan | undefined {
    return index === this.firstIndex ? this.first : this.rest.get(index);
  }

  /** Job `index`'s approval is being asked. */
  asked(index: number, job: J): void {
    this.spanOf(index, job).span?.addEvent('agenttool.approval.requested');
  }

  /** Job `index`'s approval came: approved, or refused (its end follows). */
  answered(index: number, approved: boolean): void {
    this.find(index)?.span?.addEvent('agenttool.approval.answered', {
      'agenttool.approval.approved': approved,
    });
  }

  /** Runs `run.start()` (the call's onStart, then its tool) in the context of job `index`'s span. */
  start(index: number, job: J, run: Startable): void {
    this.spanOf(index, job).startIn(run);
  }

  /** The call job `index`'s tool is given: its `trace` names the call's span. */
  callOf(index: number, job: J): ToolCall {
    return this.spanOf(index, job).call;
  }

  /** A question job `index`'s tool asked, or its answer. */
  question(index: number, request: ElicitRequest, answer: ElicitResult | undefined): void {
    const span = this.find(index)?.span;
    if (span === undefined) return;
    const mode = (request as { mode?: unknown }).mode;
    if (answer === undefined)
      span.addEvent('agenttool.question.asked', {
        'agenttool.question.mode': typeof mode === 'string' ? mode : 'form',
      });
    else
      span.addEvent('agenttool.question.answered', { 'agenttool.question.action': answer.action });
  }

  /** Job `index` has its final event: its span ends with the outcome. */
  ended(index: number, job: J, result: ToolResult | undefined, error: Error | undefined): void {
    const made = this.spanOf(index, job);
    if (index === this.firstIndex) {
      this.firstIndex = -1;
      this.first = undefined;
    } else this.rest.delete(index);
    made.end(result, error);
  }

  /** The batch is over with spans still open (unsubscribed, or its source failed): cancelled. */
  closeAll(): void {
    const first = this.first;
    if (first === undefined && this.rest.size === 0) return;
    const error = new CancelledError('call cancelled: the batch was unsubscribed');
    this.firstIndex = -1;
    this.first = undefined;
    // `first` was made before any of `rest`: they end in the order they were made.
    first?.end(undefined, error);
    for (const made of this.rest.values()) made.end(undefined, error);
    this.rest.clear();
  }
}

/**
 * `{ ...call, trace }`, made another way: on Node 20 a spread followed by one more property made
 * each copy a hidden class of its own (about 240 bytes a call, and every read of the copy's
 * properties a miss). `Object.assign` into an empty literal copies the same own enumerable
 * properties in the same order; a call with an own `__proto__` key, which it would set the copy's
 * prototype with, is spread.
 */
function withTrace(call: ToolCall, trace: TraceContext): ToolCall {
  if (Object.hasOwn(call, '__proto__')) return { ...call, trace };
  const copy: { -readonly [K in keyof ToolCall]: ToolCall[K] } = Object.assign({}, call);
  copy.trace = trace;
  return copy;
}

/** The tool name the last span was named for, and that name (see `spanName`). */
let namedTool: string | undefined;
let lastName = 'execute_tool';

/**
 * `execute_tool {name}`, or `execute_tool` for a job without a tool. The span keeps its name until
 * it is exported: the last one is reused, so a batch of calls to one tool makes it once.
 */
function spanName(toolName: string | undefined): string {
  if (toolName === namedTool) return lastName;
  namedTool = toolName;
  lastName = toolName === undefined ? 'execute_tool' : `execute_tool ${toolName}`;
  return lastName;
}

/**
 * One call's `execute_tool` span (when tracing) and its start (for its duration): made by a
 * batch for each of its jobs, and by `createMcpServer` for each call it serves.
 */
export class ToolSpan {
  readonly span: OtelSpan | undefined;
  /** The context the tool runs in: the span's, under its parent. */
  private readonly context: OtelContext;
  /** The call the tool gets: the job's, its `trace` naming the span. */
  readonly call: ToolCall;
  private readonly toolName: string | undefined;
  /** When the call started, for its duration: read only when there is a histogram to record it. */
  private readonly start: number;
  private ended = false;

  constructor(
    private readonly active: ActiveTelemetry,
    job: SpannedJob,
    /** The context the span goes under. */
    under: OtelContext,
    private readonly options: Pick<SpanOptions, 'recordInputs' | 'recordOutputs'>,
  ) {
    const { otel, tracer } = active;
    const tool = job.tool as Tool | undefined;
    const call = job.call;
    const toolName = typeof tool?.name === 'string' ? tool.name : undefined;
    this.toolName = toolName;
    this.start = active.durations === undefined ? 0 : now();
    this.context = under;
    this.call = call;
    this.span = undefined;
    if (tracer === undefined) return;
    const description = tool?.description;
    // One literal per shape, the description in it when there is one: no property added after.
    const attributes: OtelAttributes =
      typeof description === 'string' && description !== ''
        ? {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': toolName,
            'gen_ai.tool.call.id': call.id,
            'gen_ai.tool.type': 'function',
            'gen_ai.tool.description': description,
          }
        : {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': toolName,
            'gen_ai.tool.call.id': call.id,
            'gen_ai.tool.type': 'function',
          };
    if (options.recordInputs === true)
      attributes['gen_ai.tool.call.arguments'] = call.args === '' ? '{}' : call.args;
    if (call.resumed !== undefined) attributes['agenttool.call.resumed'] = true;
    const span = tracer.startSpan(
      spanName(toolName),
      { kind: SPAN_KIND.INTERNAL, attributes },
      under,
    );
    this.span = span;
    // The span's context is made only for a context manager to make active (see `run`).
    if (active.carries) this.context = otel.trace.setSpan(under, span);
    this.call = withTrace(call, traceContextOf(span.spanContext()));
  }

  /**
   * The span of a call run outside a batch (a call `createMcpServer` serves), under `parent`
   * (the active context when undefined); undefined when the application neither traces nor
   * measures.
   */
  static under(parent: OtelContext | undefined, job: SpannedJob): ToolSpan | undefined {
    const active = activeTelemetry();
    if (active === undefined) return undefined;
    return new ToolSpan(active, job, parent ?? active.otel.context.active(), {});
  }

  /**
   * Runs `work` (the call's onStart and tool) in the span's context; as it is, without a context
   * manager to make that context active (the API's no-op one would only call it).
   */
  run<T>(work: () => T): T {
    return this.active.carries ? this.active.otel.context.with(this.context, work) : work();
  }

  /** Runs `run.start()` (the call's onStart, then its tool) in the span's context, as `run` does. */
  startIn(run: Startable): void {
    if (this.active.carries) this.active.otel.context.with(this.context, run.start, run);
    else run.start();
  }

  /** Ends the span with the call's outcome, and records its duration. Once only. */
  end(result: ToolResult | undefined, error: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    const type = error === undefined ? undefined : errorType(error);
    const span = this.span;
    if (span !== undefined) {
      if (error !== undefined) {
        span.setAttribute('error.type', type!);
        span.setStatus({ code: STATUS_ERROR, message: error.message });
      } else if (result !== undefined && this.options.recordOutputs === true) {
        span.setAttribute('gen_ai.tool.call.result', recordedOutput(result));
      }
      span.end();
    }
    const durations = this.active.durations;
    if (durations !== undefined) {
      const attributes: OtelAttributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': this.toolName,
      };
      if (type !== undefined) attributes['error.type'] = type;
      durations.tool.record((now() - this.start) / 1000, attributes);
    }
  }
}
