/**
 * OpenTelemetry, through `@opentelemetry/api` alone and only when the application uses it: the
 * API is an optional peer, found at run time (Node: resolved from this package, as `require`
 * would; anywhere: handed over with `registerOpenTelemetry`), never imported statically, so
 * a bundle without it carries nothing and a process without it pays nothing.
 *
 * Spans and metrics are made only when the application has registered a tracer provider (or a
 * meter provider): with the API installed and nothing registered, nothing is made either. What
 * the engine records, and under which names, is in docs/telemetry.md.
 *
 * The types below are the few members of the API this package reads, written out so that no
 * declaration of this package names `@opentelemetry/api`: a project without it still typechecks.
 *
 * @module
 */
import type { ToolResult, TraceContext } from '../contract.js';
import { optionalModule } from '../optional-module.js';
import { traceOf } from '../trace-context.js';

/** The instrumentation scope's name: the tracer and the meter the spans and metrics come from. */
export const INSTRUMENTATION_NAME = 'agenttool';
/** The instrumentation scope's version: this package's. */
export const INSTRUMENTATION_VERSION = '0.1.0';

/** An OpenTelemetry Context, opaque here. */
export type OtelContext = object;

/** Attribute values as the API takes them. */
export type OtelAttributes = Record<string, string | number | boolean | undefined>;

/** What identifies a span in a trace. */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: { serialize(): string };
}

/** A span, as this package writes it. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setAttributes(attributes: OtelAttributes): unknown;
  addEvent(name: string, attributes?: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  isRecording(): boolean;
  end(endTime?: number): void;
}

/** A tracer. */
export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: OtelAttributes },
    context?: OtelContext,
  ): OtelSpan;
}

/** A histogram. */
export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

/** A meter. */
interface OtelMeter {
  createHistogram(
    name: string,
    options?: {
      description?: string;
      unit?: string;
      advice?: { explicitBucketBoundaries?: number[] };
    },
  ): OtelHistogram;
}

/** The members of `@opentelemetry/api` (1.x) this package uses. */
export interface OpenTelemetryApi {
  readonly trace: {
    getTracerProvider(): object;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
    getSpan(context: OtelContext): OtelSpan | undefined;
  };
  readonly context: {
    active(): OtelContext;
    with<A extends unknown[], R>(
      context: OtelContext,
      fn: (...args: A) => R,
      thisArg?: unknown,
      ...args: A
    ): R;
  };
  readonly metrics: { getMeterProvider(): object };
  readonly ROOT_CONTEXT: OtelContext;
  createNoopMeter(): object;
  createTraceState?(raw?: string): { serialize(): string };
}

/** Span kinds and status codes, as the API numbers them. */
export const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;
export const STATUS_ERROR = 2;

/** The API in use: undefined before it is looked for, null once looked for and not found. */
let api: OpenTelemetryApi | null | undefined;

/**
 * The API this package uses from now on: `module` (checked to be `@opentelemetry/api`), or none
 * for undefined. See `registerOpenTelemetry` (operators/telemetry.ts), its public face.
 */
export function useOpenTelemetry(module: object | undefined): void {
  if (module === undefined) {
    api = null;
    return;
  }
  const candidate = module as Partial<OpenTelemetryApi> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.trace !== 'object' ||
    typeof candidate.context !== 'object' ||
    typeof candidate.metrics !== 'object'
  )
    throw new TypeError('registerOpenTelemetry: expected the @opentelemetry/api module');
  api = candidate as OpenTelemetryApi;
}

/** The API, looked for once: registered, or resolved from this package in Node; else undefined. */
export function openTelemetry(): OpenTelemetryApi | undefined {
  if (api === undefined) api = findApi();
  return api ?? undefined;
}

function findApi(): OpenTelemetryApi | null {
  const found = optionalModule('@opentelemetry/api') as OpenTelemetryApi | undefined;
  return typeof found?.trace === 'object' ? found : null;
}

/**
 * The tracer of this package when the application has registered a tracer provider, else
 * undefined (the API absent, or no provider: the API's global provider then only proxies a no-op).
 */
function activeTracer(otel: OpenTelemetryApi): OtelTracer | undefined {
  const provider = otel.trace.getTracerProvider() as {
    getDelegateTracer?(name: string, version?: string): OtelTracer | undefined;
    getTracer(name: string, version?: string): OtelTracer;
  };
  // The global provider is a proxy with a delegate once one is registered.
  if (typeof provider.getDelegateTracer === 'function')
    return provider.getDelegateTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  return provider.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
}

/** The bucket boundaries the GenAI and MCP conventions advise for operation durations, in s. */
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** The duration histograms, made once per registered meter provider. */
export interface Durations {
  /** `gen_ai.client.operation.duration`: a call run by the engine. */
  readonly tool: OtelHistogram;
  /** `mcp.client.operation.duration`: an MCP request this package sent. */
  readonly mcpClient: OtelHistogram;
  /** `mcp.server.operation.duration`: an MCP request this package served. */
  readonly mcpServer: OtelHistogram;
}

let durationsOf: { provider: object; durations: Durations | undefined } | undefined;

/** The duration histograms when the application has registered a meter provider, else undefined. */
function activeDurations(otel: OpenTelemetryApi): Durations | undefined {
  const provider = otel.metrics.getMeterProvider();
  if (durationsOf?.provider === provider) return durationsOf.durations;
  const meter = (provider as { getMeter(name: string, version?: string): OtelMeter }).getMeter(
    INSTRUMENTATION_NAME,
    INSTRUMENTATION_VERSION,
  );
  const noop = (meter as object).constructor === otel.createNoopMeter().constructor;
  const histogram = (name: string, description: string) =>
    meter.createHistogram(name, {
      description,
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  const durations = noop
    ? undefined
    : {
        tool: histogram('gen_ai.client.operation.duration', 'GenAI operation duration.'),
        mcpClient: histogram(
          'mcp.client.operation.duration',
          'The duration of the MCP request as observed on the sender.',
        ),
        mcpServer: histogram(
          'mcp.server.operation.duration',
          'MCP request duration as observed on the receiver.',
        ),
      };
  durationsOf = { provider, durations };
  return durations;
}

/**
 * `error.type` for an error: its stable string `code` (this package's errors: `invalid_arguments`,
 * `timeout`, `cancelled`, `not_approved`, ...; a remote tool's `remote_tool`; Node's
 * `ECONNREFUSED`), otherwise its name (`TypeError`), or `_OTHER` when it has neither.
 */
export function errorType(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code !== '' && code.length <= 64) return code;
  const name = typeof error.name === 'string' ? error.name : '';
  return name === '' ? '_OTHER' : name;
}

/** A span context as a W3C trace context, for `call.trace` and MCP's `_meta`. */
export function traceContextOf(spanContext: OtelSpanContext): TraceContext {
  const flags = spanContext.traceFlags & 0xff;
  // Sampled (01) or not (00) are the flags a span has in practice: their text is not made anew.
  const tail =
    flags === 1 ? '-01' : flags === 0 ? '-00' : `-${flags.toString(16).padStart(2, '0')}`;
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}${tail}`;
  const state = spanContext.traceState?.serialize();
  return state === undefined || state === '' ? { traceparent } : { traceparent, tracestate: state };
}

/** What the application has registered: the API, and the tracer and histograms when any. */
export interface ActiveTelemetry {
  readonly otel: OpenTelemetryApi;
  readonly tracer: OtelTracer | undefined;
  readonly durations: Durations | undefined;
  /**
   * Whether a context manager makes active the context `context.with` is given (see
   * `carriesContext`): looked at when the batch is subscribed, as its tracer is.
   */
  readonly carries: boolean;
}

/** An invalid span context, for the probe `carriesContext` hands its manager. */
const PROBE_SPAN: OtelSpanContext = {
  traceId: '00000000000000000000000000000000',
  spanId: '0000000000000000',
  traceFlags: 0,
};

/** A context other than the root, made once per API module (see `carriesContext`). */
let probe: { otel: OpenTelemetryApi; context: OtelContext } | undefined;

/**
 * Whether the global context manager makes a context active inside `context.with`: false when
 * the application has registered none (the API's no-op manager only calls the function, and
 * `context.active()` is the root context throughout), where running a call in its span's context
 * would change nothing a tool can see.
 */
function carriesContext(otel: OpenTelemetryApi): boolean {
  if (probe?.otel !== otel)
    probe = { otel, context: otel.trace.setSpanContext(otel.ROOT_CONTEXT, PROBE_SPAN) };
  const context = probe.context;
  return otel.context.with(context, otel.context.active, otel.context) === context;
}

/**
 * The API with this package's tracer and histograms, or undefined when nothing is to be made:
 * the API not found, or neither a tracer nor a meter provider registered.
 */
export function activeTelemetry(): ActiveTelemetry | undefined {
  const otel = openTelemetry();
  if (otel === undefined) return undefined;
  const tracer = activeTracer(otel);
  const durations = activeDurations(otel);
  if (tracer === undefined && durations === undefined) return undefined;
  return { otel, tracer, durations, carries: carriesContext(otel) };
}

/**
 * The context a call's span goes under: the remote span `trace` names (a request's `_meta`, a
 * fleet's job) under `base`, when it names a valid one; else `base` itself.
 */
export function continuing(
  otel: OpenTelemetryApi,
  base: OtelContext,
  trace: TraceContext | undefined,
): OtelContext {
  const valid = trace === undefined ? undefined : traceOf(trace);
  if (valid === undefined) return base;
  const [, traceId, spanId, flags] = valid.traceparent.split('-');
  const spanContext: OtelSpanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: parseInt(flags!, 16) & 0xff,
    isRemote: true,
  };
  if (valid.tracestate !== undefined && otel.createTraceState !== undefined)
    spanContext.traceState = otel.createTraceState(valid.tracestate);
  return otel.trace.setSpanContext(base, spanContext);
}

/** A result's output as `gen_ai.tool.call.result` records it: text as is, parts as JSON. */
export function recordedOutput(result: ToolResult): string {
  const output = result.output;
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output);
  } catch {
    return '';
  }
}

/** The time now in ms since the epoch, with sub-ms precision where there is a clock for it. */
export function now(): number {
  return typeof performance === 'object' ? performance.timeOrigin + performance.now() : Date.now();
}
