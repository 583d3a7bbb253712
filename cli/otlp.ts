/**
 * `--otlp <url>`: the command's spans (each call's `execute_tool`, MCP's `tools/call`, see
 * docs/telemetry.md) exported over OTLP/HTTP with OpenTelemetry's official SDK and exporter, which
 * are optional peers of agenttool loaded only here; without them, one line says what to install.
 *
 * @module
 */
import type { OpenTelemetryApi } from '../lib/telemetry.js';
import { registerOpenTelemetry } from '../operators/telemetry.js';
import { UsageError } from './usage-error.js';

/** The packages `--otlp` is built on. */
export const OTLP_PACKAGES: readonly string[] = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
];

/** The longest the spans still queued at the end may take to leave. */
const FLUSH_LIMIT = 5_000;

/**
 * The collector's traces endpoint: a URL whose path is `/` (the collector itself, as
 * `http://localhost:4318`) gets OTLP's `/v1/traces`; any other path is taken as given.
 */
export function tracesEndpoint(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/v1/traces';
  return parsed.href;
}

/** What `--otlp` gives a command: a span around its work, and the end of the export. */
export interface Otlp {
  /** Runs `work` in an active span `name`: a run's calls are then one trace. */
  within<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Sends what is still queued (at most 5 s) and stops. */
  stop(): Promise<void>;
}

interface Sdk {
  api: OpenTelemetryApi & {
    trace: {
      setGlobalTracerProvider(provider: object): boolean;
      getTracer(name: string): {
        startActiveSpan<T>(name: string, fn: (span: { end(): void }) => T): T;
      };
    };
    context: { setGlobalContextManager(manager: object): boolean };
  };
  trace: {
    TracerProvider: new (options: object) => { shutdown(): Promise<void> };
    BatchSpanProcessor: new (options: object) => object;
  };
  hooks: { AsyncLocalStorageContextManager: new () => { enable(): object } };
  exporter: { OTLPTraceExporter: new (options: { url: string }) => object };
  resources: { resourceFromAttributes(attributes: Record<string, string>): object };
}

async function loadSdk(): Promise<Sdk> {
  const missing: string[] = [];
  const loaded = await Promise.all(
    OTLP_PACKAGES.map((name) =>
      import(name).catch((err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        if (code !== 'ERR_MODULE_NOT_FOUND') throw err;
        missing.push(name);
        return undefined;
      }),
    ),
  );
  if (missing.length > 0)
    throw new UsageError(
      `--otlp needs OpenTelemetry's SDK, optional peer dependencies of agenttool that are not installed: npm install ${missing.join(' ')}`,
    );
  const [api, trace, hooks, exporter, resources] = loaded as unknown[];
  return { api, trace, hooks, exporter, resources } as Sdk;
}

/**
 * Registers a tracer provider that exports to `url` (see {@link tracesEndpoint}) under the
 * service name `service`; the command awaits `stop` at its end (at most 5 s: a collector that is
 * away costs the exit no more).
 */
export async function startOtlp(url: string, service: string): Promise<Otlp> {
  const sdk = await loadSdk();
  const exporter = new sdk.exporter.OTLPTraceExporter({ url: tracesEndpoint(url) });
  const provider = new sdk.trace.TracerProvider({
    resource: sdk.resources.resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new sdk.trace.BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000 })],
  });
  sdk.api.context.setGlobalContextManager(new sdk.hooks.AsyncLocalStorageContextManager().enable());
  sdk.api.trace.setGlobalTracerProvider(provider);
  registerOpenTelemetry(sdk.api);
  const tracer = sdk.api.trace.getTracer('agenttool');
  return {
    within: (name, work) =>
      tracer.startActiveSpan(name, (span) => work().finally(() => span.end())),
    async stop() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_LIMIT))),
      ]);
      clearTimeout(timer);
    },
  };
}
