/**
 * Scenario 11, telemetry: what OpenTelemetry costs a batch (docs/telemetry.md). The same batch of
 * trivial calls through `executeBatch` with the API absent (as when `@opentelemetry/api` is not
 * installed: `registerOpenTelemetry(undefined)` puts the package in that state), with the API
 * installed and no provider registered (what most applications that carry the API as a
 * dependency of a dependency run), and with a tracer provider registered (the official SDK, every
 * span exported to an exporter that drops it), interleaved in one run.
 *
 * @module
 */
import { metrics, trace } from '@opentelemetry/api';
import * as otel from '@opentelemetry/api';
import {
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { of } from 'rxjs';
import { executeBatch, registerOpenTelemetry, type Job } from '../../index.js';
import type { Tool, ToolEvent } from '../../lib/contract.js';
import { interleave, type Variant } from '../harness.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';

const event: ToolEvent = { final: true, result: { output: 'ok' } };
const trivial: Tool = { name: 'ok', description: 'Returns ok.', execute: () => of(event) };

/** Takes every span and keeps none: the cost measured is making them. */
class Dropping implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    this.spans += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

function batch(jobs: readonly Job[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let finals = 0;
    executeBatch(jobs, { maxParallel: 8 }).subscribe({
      next: (e) => void (e.final && finals++),
      error: reject,
      complete: () =>
        finals === jobs.length
          ? resolve()
          : reject(new Error(`${finals} finals of ${jobs.length}`)),
    });
  });
}

/** The OpenTelemetry API absent, as to an application that never installed it. */
function absent(): void {
  trace.disable();
  metrics.disable();
  registerOpenTelemetry(undefined);
}

/** The OpenTelemetry API installed, no provider registered. */
function installed(): void {
  trace.disable();
  metrics.disable();
  registerOpenTelemetry(otel);
}

/**
 * `work`, then one turn of the event loop: the exporter's promise callbacks that its spans queued
 * (the SDK's SimpleSpanProcessor exports through promises) run inside the sample that made them.
 * Without it a loop that returns at once would leave its spans' export to run after its timing,
 * while a batch, which ends in a callback, pays for part of its own.
 */
async function settled(work: () => void | Promise<void>): Promise<void> {
  await work();
  await new Promise((turned) => setImmediate(turned));
}

/** The sides, in the order they are sampled: the API absent, installed, a provider, by hand. */
function variantsOf(jobs: Job[], provider: TracerProvider, count: number): Variant[] {
  const variants: Variant[] = [
    { name: 'API absent', calls: count, run: () => settled(() => (absent(), batch(jobs))) },
    {
      name: 'API, no provider',
      calls: count,
      run: () => settled(() => (installed(), batch(jobs))),
    },
    {
      name: 'provider registered',
      calls: count,
      run: () =>
        settled(() => {
          installed();
          trace.setGlobalTracerProvider(provider);
          return batch(jobs);
        }),
    },
  ];
  // The floor with spans: each call run in a plain loop, inside a span made by hand with the
  // attributes the engine gives its spans.
  const tracer = provider.getTracer('by-hand');
  variants.push({
    name: 'loop, span by hand',
    calls: count,
    run: () =>
      settled(() => {
        installed();
        trace.setGlobalTracerProvider(provider);
        let finals = 0;
        for (const job of jobs) {
          const span = tracer.startSpan('execute_tool ok', {
            kind: 0,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': job.tool.name,
              'gen_ai.tool.call.id': job.call.id,
              'gen_ai.tool.description': job.tool.description,
              'gen_ai.tool.type': 'function',
            },
          });
          job.tool
            .execute(job.call, undefined as never)
            .subscribe((e) => void (e.final && finals++));
          span.end();
        }
        if (finals !== count) throw new Error(`${finals} finals of ${count}`);
      }),
  });
  return variants;
}

/** Runs scenario 11 and returns its rows. */
export async function telemetryScenario(scale: Scale): Promise<Row[]> {
  const count = Math.round(20_000 * scale.size);
  const jobs: Job[] = Array.from({ length: count }, (_, i) => ({
    tool: trivial,
    call: { id: `call_${i}`, args: '' },
  }));
  const exporter = new Dropping();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const variants = variantsOf(jobs, provider, count);
  // Without spans and with them, apart: the heap the traced sides leave would land on the others.
  const [none, idle] = await interleave(variants.slice(0, 2), { rounds: scale.rounds(15) });
  const [traced, byHand] = await interleave(variants.slice(2), { rounds: scale.rounds(9) });
  absent();
  if (exporter.spans === 0) throw new Error('the traced batch made no span');
  const scenario = '11 telemetry';
  const ns = (s: NonNullable<typeof none>) => ({
    label: s.name,
    value: s.median,
    unit: 'ns/call' as const,
  });
  return [
    row({
      scenario,
      name: `${count / 1000}k calls, @opentelemetry/api installed, no provider`,
      ours: ns(idle!),
      baseline: ns(none!),
      target: { on: 'ratio', max: 1.1, text: '<= 1.1x' },
      note: 'no provider registered: nothing is made, the batch costs what it costs without the API',
    }),
    row({
      scenario,
      name: `${count / 1000}k calls, a tracer provider registered`,
      ours: ns(traced!),
      baseline: ns(none!),
      note: 'measured apart from the baseline; one execute_tool span per call, made, ended and exported (to an exporter that drops it)',
    }),
    row({
      scenario,
      name: `${count / 1000}k calls traced, against a plain loop making the same spans by hand`,
      ours: ns(traced!),
      baseline: ns(byHand!),
      target: { on: 'ratio', max: 1.2, text: '<= 1.2x' },
      note: "what the engine adds to the SDK's own cost of a span per call",
    }),
  ];
}
