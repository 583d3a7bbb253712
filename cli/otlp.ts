/**
 * `--otlp <url>`: the command's spans (each call's `execute_tool`, MCP's `tools/call`, see
 * docs/telemetry.md) exported over OTLP/HTTP with OpenTelemetry's official SDK and exporter, which
 * are optional peers of agenttool loaded only here; without them, one line says what to install.
 *
 * @module
 */
import type { Agent } from 'node:http';
import {
  catchError,
  defaultIfEmpty,
  firstValueFrom,
  from,
  map,
  of,
  race,
  timer,
  type Observable,
} from 'rxjs';
import type { OpenTelemetryApi } from '../lib/telemetry/open-telemetry.js';
import { registerOpenTelemetry } from '../operators/telemetry.js';
import { UsageError } from './usage-error.js';

/**
 * The longest the end of the export may hold the command's exit (docs/telemetry.md): each export
 * to the collector, its retries included, gives up after it, and the command's last flush is
 * abandoned at it, its connections cut, whatever the collector does.
 */
export const FLUSH_LIMIT_MS = 5_000;

/** How the last flush ended: sent, or not (why, in words), the spans then dropped. */
export type FlushEnd = { sent: true } | { sent: false; why: string };

/**
 * The end of `flush` (the tracer provider's shutdown), bounded: what it ended with, or, when it
 * has not ended `limit` ms after the subscription, `no answer within … s` (the caller abandons it).
 */
export function boundedFlush(
  flush: Observable<unknown>,
  limit = FLUSH_LIMIT_MS,
): Observable<FlushEnd> {
  const ended = flush.pipe(
    defaultIfEmpty(undefined),
    map((): FlushEnd => ({ sent: true })),
    catchError((err: unknown) =>
      of<FlushEnd>({ sent: false, why: err instanceof Error ? err.message : String(err) }),
    ),
  );
  const abandoned = timer(limit).pipe(
    map((): FlushEnd => ({ sent: false, why: `no answer within ${limit / 1000} s` })),
  );
  return race(ended, abandoned);
}

/**
 * The exporter's connections (its `httpAgentOptions` factory): once {@link abandon}ed, the open
 * ones are cut and no new one opens, so a collector that hangs or answers a byte at a time holds
 * the process no longer (the exporter's own timeout is an idle one, which a trickle resets).
 */
class Connections {
  private abandoned = false;
  private readonly agents: Agent[] = [];

  readonly factory = async (protocol: string): Promise<Agent> => {
    const { Agent } = protocol === 'http:' ? await import('node:http') : await import('node:https');
    const agent = new Agent({ keepAlive: true });
    const open = agent.createConnection.bind(agent);
    agent.createConnection = (options, callback) => {
      if (!this.abandoned) return open(options, callback);
      callback?.(new Error('the export was abandoned'), undefined as never);
      return undefined;
    };
    this.agents.push(agent);
    return agent;
  };

  abandon(): void {
    this.abandoned = true;
    for (const agent of this.agents) agent.destroy();
  }
}

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
  /** Sends what is still queued (at most {@link FLUSH_LIMIT_MS}, then abandoned) and stops. */
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
  /** The tracer provider with a batching processor into `exporter`, whichever SDK line it is. */
  provider(exporter: object, resource: object): { shutdown(): Promise<void> };
  hooks: { AsyncLocalStorageContextManager: new () => { enable(): object } };
  exporter: {
    OTLPTraceExporter: new (options: {
      url: string;
      timeoutMillis: number;
      httpAgentOptions: (protocol: string) => Promise<Agent>;
    }) => object;
  };
  resources: { resourceFromAttributes(attributes: Record<string, string>): object };
}

/** What importing `name` gives, or undefined when it is not installed. */
async function optional(name: string): Promise<unknown> {
  try {
    return await import(name);
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * The packages `--otlp` needs, at versions that install together on Node 20 and on Node 22: the
 * SDK's 2.x line with the API below 1.10 (its 3.x line asks for Node 22.15 and the API 1.10;
 * docs/telemetry.md gives both sets).
 */
export const OTLP_INSTALL =
  '@opentelemetry/api@~1.9 @opentelemetry/sdk-trace@^2 @opentelemetry/context-async-hooks@^2 ' +
  '@opentelemetry/resources@^2 @opentelemetry/exporter-trace-otlp-http@~0.223';

/** How often the batching processor sends what it holds. */
const EXPORT_EVERY = 1_000;

async function loadSdk(): Promise<Sdk> {
  const [api, hooks, exporter, resources, current, previous] = await Promise.all(
    [
      '@opentelemetry/api',
      '@opentelemetry/context-async-hooks',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/resources',
      // The SDK's 3.x line (Node 22.15 and later), or its 2.x line (Node 20): either will do.
      '@opentelemetry/sdk-trace',
      '@opentelemetry/sdk-trace-base',
    ].map(optional),
  );
  const missing = [
    api === undefined ? '@opentelemetry/api' : '',
    current === undefined && previous === undefined ? '@opentelemetry/sdk-trace' : '',
    hooks === undefined ? '@opentelemetry/context-async-hooks' : '',
    exporter === undefined ? '@opentelemetry/exporter-trace-otlp-http' : '',
    resources === undefined ? '@opentelemetry/resources' : '',
  ].filter((name) => name !== '');
  if (missing.length > 0)
    throw new UsageError(
      `--otlp needs OpenTelemetry's SDK, optional peer dependencies of agenttool that are not installed (${missing.join(', ')}): npm install ${OTLP_INSTALL}`,
    );
  const provider =
    current !== undefined
      ? (out: object, resource: object) => {
          const sdk = current as {
            TracerProvider: new (options: object) => { shutdown(): Promise<void> };
            BatchSpanProcessor: new (options: object) => object;
          };
          const processor = new sdk.BatchSpanProcessor({
            exporter: out,
            scheduledDelayMillis: EXPORT_EVERY,
          });
          return new sdk.TracerProvider({ resource, spanProcessors: [processor] });
        }
      : (out: object, resource: object) => {
          const sdk = previous as {
            BasicTracerProvider: new (options: object) => { shutdown(): Promise<void> };
            BatchSpanProcessor: new (exporter: object, options: object) => object;
          };
          const processor = new sdk.BatchSpanProcessor(out, {
            scheduledDelayMillis: EXPORT_EVERY,
          });
          return new sdk.BasicTracerProvider({ resource, spanProcessors: [processor] });
        };
  return { api, hooks, exporter, resources, provider } as Sdk;
}

/**
 * Registers a tracer provider that exports to `url` (see {@link tracesEndpoint}) under the
 * service name `service`; the command awaits `stop` at its end (at most {@link FLUSH_LIMIT_MS}: a
 * collector that is away, refuses, hangs or is slow costs the exit no more; one line on `warn`
 * says the last spans were dropped).
 */
export async function startOtlp(
  url: string,
  service: string,
  warn: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<Otlp> {
  const sdk = await loadSdk();
  const endpoint = tracesEndpoint(url);
  const connections = new Connections();
  const exporter = new sdk.exporter.OTLPTraceExporter({
    url: endpoint,
    // Retries stop at this deadline too, so none is left waiting past the limit.
    timeoutMillis: FLUSH_LIMIT_MS,
    httpAgentOptions: connections.factory,
  });
  const provider = sdk.provider(
    exporter,
    sdk.resources.resourceFromAttributes({ 'service.name': service }),
  );
  sdk.api.context.setGlobalContextManager(new sdk.hooks.AsyncLocalStorageContextManager().enable());
  sdk.api.trace.setGlobalTracerProvider(provider);
  registerOpenTelemetry(sdk.api);
  const tracer = sdk.api.trace.getTracer('agenttool');
  return {
    within: (name, work) =>
      tracer.startActiveSpan(name, (span) => work().finally(() => span.end())),
    async stop() {
      const end = await firstValueFrom(boundedFlush(from(provider.shutdown())));
      if (end.sent) return;
      connections.abandon();
      warn(
        `agenttool: --otlp: the last spans were not sent to ${endpoint} (${end.why}); exiting without them`,
      );
    },
  };
}
