/**
 * The OpenTelemetry SDK registered as an application registers it, for the tests that read the
 * spans and metrics agenttool makes: an in-memory span exporter, a metric reader collected on
 * demand, and the async-hooks context manager. `stop()` unregisters all of it, so a test file
 * that follows in the same worker runs without a provider.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  MeterProvider,
  MetricReader,
  type HistogramMetricData,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';

class OnDemandReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

export interface Tracing {
  readonly exporter: InMemorySpanExporter;
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The spans named `name`. */
  named(name: string): ReadableSpan[];
  /** The histogram named `name`, as collected now. */
  metric(name: string): Promise<HistogramMetricData | undefined>;
  stop(): Promise<void>;
}

/**
 * Registers a tracer provider (and, unless `metrics` is false, a meter provider), and the
 * async-hooks context manager unless `contextManager` is false.
 */
export function startTracing(
  options: { metrics?: boolean; traces?: boolean; contextManager?: boolean } = {},
): Tracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  if (options.contextManager !== false)
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  if (options.traces !== false) trace.setGlobalTracerProvider(provider);
  const reader = new OnDemandReader();
  const meters = new MeterProvider({ readers: [reader] });
  if (options.metrics !== false) metrics.setGlobalMeterProvider(meters);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    async metric(name) {
      const { resourceMetrics } = await reader.collect();
      const all: MetricData[] = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
      return all.find((m) => m.descriptor.name === name) as HistogramMetricData | undefined;
    },
    async stop() {
      trace.disable();
      metrics.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
      await meters.shutdown();
    },
  };
}
