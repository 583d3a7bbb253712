/**
 * OpenTelemetry in the engine (docs/telemetry.md): each call run by executeBatch or executeCalls
 * is an `execute_tool {name}` span per the GenAI conventions, a child of the context where the
 * batch was subscribed, read here through the official SDK's in-memory exporter.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { expect } from 'chai';
import { lastValueFrom, NEVER, Observable, of, Subject, toArray } from 'rxjs';
import { z } from 'zod';
import {
  executeBatch,
  executeCalls,
  rawTool,
  registerOpenTelemetry,
  tool,
  type ExecutionEvent,
  type Job,
  type TelemetryOptions,
  type ToolCall,
} from '../../index.js';
import { startTracing, type Tracing } from '../support/otel.js';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const boom = tool({
  name: 'boom',
  description: 'Fails.',
  parameters: z.object({}),
  execute: () => {
    throw new RangeError('out of range');
  },
});

/** The call each run saw, and the span active while it ran. */
const seen: { call: ToolCall; active: string | undefined }[] = [];
const look = rawTool({
  name: 'look',
  description: 'Reports what it runs under.',
  parameters: { type: 'object', properties: {} },
  execute: (call, ctx) =>
    new Observable((subscriber) => {
      seen.push({ call: ctx.call, active: trace.getActiveSpan()?.spanContext().spanId });
      subscriber.next({ final: true, result: { output: 'ok' } });
      subscriber.complete();
    }),
});

const never = rawTool({
  name: 'never',
  description: 'Never ends.',
  parameters: { type: 'object', properties: {} },
  execute: () => NEVER,
});

function job(t: Job['tool'], id: string, args = '{}', extra: Partial<ToolCall> = {}): Job {
  return { tool: t, call: { id, args, ...extra } };
}

function run(jobs: Job[], options: Parameters<typeof executeBatch>[1] = {}) {
  return lastValueFrom(executeBatch(jobs, options).pipe(toArray()));
}

function attrs(span: ReadableSpan): Record<string, unknown> {
  return { ...span.attributes };
}

describe('telemetry: execute_tool spans', () => {
  let tracing: Tracing;
  beforeEach(() => {
    seen.length = 0;
    tracing = startTracing();
  });
  afterEach(() => tracing.stop());

  it('makes one INTERNAL span per call, named and attributed per the GenAI conventions', async () => {
    await run([job(add, 'c1', '{"a":1,"b":2}')]);
    const [span] = tracing.spans();
    expect(span!.name).to.equal('execute_tool add');
    expect(span!.kind).to.equal(SpanKind.INTERNAL);
    expect(span!.instrumentationScope.name).to.equal('agenttool');
    expect(attrs(span!)).to.deep.equal({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.description': 'Adds two numbers.',
      'gen_ai.tool.type': 'function',
    });
    expect(span!.status.code).to.equal(SpanStatusCode.UNSET);
  });

  it('parents every call on the span active where the batch was subscribed', async () => {
    const tracer = trace.getTracer('app');
    await tracer.startActiveSpan('turn', async (turn) => {
      await run([job(add, 'a', '{"a":1,"b":2}'), job(look, 'b')]);
      turn.end();
    });
    const turn = tracing.named('turn')[0]!;
    const calls = tracing.spans().filter((s) => s.name.startsWith('execute_tool'));
    expect(calls).to.have.length(2);
    for (const call of calls) {
      expect(call.spanContext().traceId).to.equal(turn.spanContext().traceId);
      expect(call.parentSpanContext?.spanId).to.equal(turn.spanContext().spanId);
    }
  });

  it('runs the tool in its span: the active span, and the call’s trace naming it', async () => {
    await run([job(look, 'c')]);
    const span = tracing.named('execute_tool look')[0]!;
    const { traceId, spanId } = span.spanContext();
    expect(seen[0]!.active).to.equal(spanId);
    expect(seen[0]!.call.trace?.traceparent).to.equal(`00-${traceId}-${spanId}-01`);
  });

  it('gives the tool the job’s call with its trace set: its own keys kept, in their order', async () => {
    const calls: ToolCall[] = [];
    const keep = rawTool({
      name: 'keep',
      description: 'Keeps its call.',
      parameters: { type: 'object', properties: {} },
      execute: (call) => (calls.push(call), of({ final: true, result: { output: 'ok' } })),
    });
    const named = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    // A call with its own key is the one the tool gets (replay.ts, withIdempotencyKey). An own
    // `__proto__` key, as JSON.parse makes one, stays a key and sets no prototype.
    const parsed = JSON.parse(
      '{"id":"p","args":"{}","__proto__":{"x":1},"idempotencyKey":"k"}',
    ) as ToolCall;
    await run([
      job(keep, 'a', '{}', { idempotencyKey: 'k' }),
      job(keep, 'b', '{}', { trace: named, idempotencyKey: 'k' }),
      { tool: keep, call: parsed },
    ]);
    const [a, b, p] = ['a', 'b', 'p'].map((id) => calls.find((c) => c.id === id));
    const traceparentOf = (id: string) => {
      const span = tracing.spans().find((s) => s.attributes['gen_ai.tool.call.id'] === id)!;
      return `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
    };
    expect(a).to.deep.equal({
      id: 'a',
      args: '{}',
      idempotencyKey: 'k',
      trace: { traceparent: traceparentOf('a') },
    });
    expect(Object.keys(b!)).to.deep.equal(['id', 'args', 'trace', 'idempotencyKey']);
    expect(b!.trace).to.deep.equal({ traceparent: traceparentOf('b') });
    expect(Object.getPrototypeOf(p)).to.equal(Object.prototype);
    expect(Object.keys(p!)).to.deep.equal(['id', 'args', '__proto__', 'idempotencyKey', 'trace']);
    expect(p!.trace).to.deep.equal({ traceparent: traceparentOf('p') });
  });

  it('continues the trace a call names (an MCP request, a fleet job) rather than the ambient one', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await run([job(look, 'c', '{}', { trace: { traceparent, tracestate: 'rojo=1' } })]);
    const span = tracing.named('execute_tool look')[0]!;
    expect(span.spanContext().traceId).to.equal('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span.parentSpanContext?.spanId).to.equal('00f067aa0ba902b7');
    expect(span.parentSpanContext?.isRemote).to.equal(true);
    expect(seen[0]!.call.trace?.tracestate).to.equal('rojo=1');
  });

  it('takes a trace a call names that breaks the W3C format for none', async () => {
    const tracer = trace.getTracer('app');
    await tracer.startActiveSpan('turn', async (turn) => {
      await run([job(look, 'c', '{}', { trace: { traceparent: '00-zz-00-01' } })]);
      turn.end();
    });
    const span = tracing.named('execute_tool look')[0]!;
    expect(span.parentSpanContext?.spanId).to.equal(tracing.named('turn')[0]!.spanContext().spanId);
  });

  it('ends a failing call’s span with ERROR, its message and the error’s name as error.type', async () => {
    const events = await run([job(boom, 'c')]);
    expect(events.at(-1)!.error?.message).to.equal('out of range');
    const span = tracing.named('execute_tool boom')[0]!;
    expect(span.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: 'out of range' });
    expect(span.attributes['error.type']).to.equal('RangeError');
  });

  it('gives a call with bad arguments error.type invalid_arguments, its tool never run', async () => {
    await run([job(add, 'c', '{"a":"x","b":2}')]);
    const span = tracing.named('execute_tool add')[0]!;
    expect(span.attributes['error.type']).to.equal('invalid_arguments');
    expect(span.status.message).to.match(/^invalid arguments: a: /);
  });

  it('gives a timed-out call error.type timeout', async () => {
    await run([job(never, 'c')], { timeout: 5 });
    const span = tracing.named('execute_tool never')[0]!;
    expect(span.attributes['error.type']).to.equal('timeout');
    expect(span.status).to.deep.equal({
      code: SpanStatusCode.ERROR,
      message: 'call timed out after 5 ms',
    });
  });

  it('gives a call cancelled by its signal, by the batch’s signal, or by unsubscribing error.type cancelled', async () => {
    const mine = new AbortController();
    const batch = new AbortController();
    const events: ExecutionEvent[] = [];
    const sub = executeBatch(
      [{ ...job(never, 'own'), signal: mine.signal }, job(never, 'running'), job(never, 'queued')],
      { maxParallel: 2, signal: batch.signal },
    ).subscribe((e) => events.push(e));
    mine.abort();
    batch.abort();
    sub.unsubscribe();
    const cut = new Subject<Job>();
    const sub2 = cut.pipe(executeCalls()).subscribe();
    cut.next(job(never, 'dropped'));
    sub2.unsubscribe();
    const byCall = new Map(
      tracing.spans().map((s) => [s.attributes['gen_ai.tool.call.id'], s] as const),
    );
    expect([...byCall.keys()].sort()).to.deep.equal(['dropped', 'own', 'queued', 'running']);
    for (const span of byCall.values()) {
      expect(span.attributes['error.type']).to.equal('cancelled');
      expect(span.status.code).to.equal(SpanStatusCode.ERROR);
    }
    expect(byCall.get('dropped')!.status.message).to.equal(
      'call cancelled: the batch was unsubscribed',
    );
    expect(events.filter((e) => e.final)).to.have.length(3);
  });

  it('shows approvals as events: asked, then answered; a refused call’s span says not_approved', async () => {
    await run([job(add, 'yes', '{"a":1,"b":1}'), job(add, 'no', '{"a":1,"b":1}')], {
      approve: (j) => Promise.resolve(j.call.id === 'yes'),
    });
    const [yes, no] = ['yes', 'no'].map((id) =>
      tracing.spans().find((s) => s.attributes['gen_ai.tool.call.id'] === id)!,
    );
    expect(yes!.events.map((e) => [e.name, e.attributes ?? {}])).to.deep.equal([
      ['agenttool.approval.requested', {}],
      ['agenttool.approval.answered', { 'agenttool.approval.approved': true }],
    ]);
    expect(no!.events.map((e) => e.attributes?.['agenttool.approval.approved'])).to.deep.equal([
      undefined,
      false,
    ]);
    expect(no!.attributes['error.type']).to.equal('not_approved');
  });

  it('shows a question as events: asked with its mode, answered with the action', async () => {
    const asking = rawTool({
      name: 'asking',
      description: 'Asks.',
      parameters: { type: 'object', properties: {} },
      execute: (_call, ctx) =>
        new Observable((subscriber) => {
          void ctx
            .elicit({ message: 'Name?', schema: { type: 'object', properties: {} } })
            .then((answer) => {
              subscriber.next({ final: true, result: { output: answer.action } });
              subscriber.complete();
            });
        }),
    });
    await run([job(asking, 'q')], { elicitor: () => Promise.resolve({ action: 'decline' }) });
    const span = tracing.named('execute_tool asking')[0]!;
    expect(span.events.map((e) => [e.name, e.attributes])).to.deep.equal([
      ['agenttool.question.asked', { 'agenttool.question.mode': 'form' }],
      ['agenttool.question.answered', { 'agenttool.question.action': 'decline' }],
    ]);
  });

  it('records arguments and results only when asked to, and never an idempotency key', async () => {
    const key = 'key-7f3a9c';
    const calls = () => [job(add, 'c', '{"a":2,"b":3}', { idempotencyKey: key })];
    await run(calls());
    const plain = tracing.spans()[0]!;
    expect(plain.attributes).not.to.have.property('gen_ai.tool.call.arguments');
    expect(plain.attributes).not.to.have.property('gen_ai.tool.call.result');
    tracing.exporter.reset();
    const telemetry: TelemetryOptions = { recordInputs: true, recordOutputs: true };
    await run(calls(), { telemetry });
    const full = tracing.spans()[0]!;
    expect(full.attributes['gen_ai.tool.call.arguments']).to.equal('{"a":2,"b":3}');
    expect(full.attributes['gen_ai.tool.call.result']).to.equal('5');
    expect(JSON.stringify([full.attributes, full.events])).not.to.contain(key);
  });

  it('tells onSpan each call’s ids, for a front that links a call to its trace', async () => {
    const told: [string, number, string][] = [];
    await run([job(add, 'c', '{"a":1,"b":1}')], {
      telemetry: { onSpan: (j, index, ids) => told.push([j.call.id, index, ids.traceId]) },
    });
    expect(told).to.deep.equal([['c', 0, tracing.spans()[0]!.spanContext().traceId]]);
  });

  it('makes no span for a batch with telemetry: false', async () => {
    await run([job(look, 'c')], { telemetry: false });
    expect(tracing.spans()).to.deep.equal([]);
    expect(seen[0]!.call.trace).to.equal(undefined);
  });

  it('records each call’s duration in gen_ai.client.operation.duration, in seconds, by tool and outcome', async () => {
    await run([job(add, 'a', '{"a":1,"b":1}'), job(add, 'b', '{"a":1,"b":1}'), job(boom, 'c')]);
    const metric = await tracing.metric('gen_ai.client.operation.duration');
    expect(metric!.descriptor.unit).to.equal('s');
    const points = metric!.dataPoints.map((p) => [p.attributes, p.value.count]);
    expect(points).to.deep.include.members([
      [{ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'add' }, 2],
      [
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'boom',
          'error.type': 'RangeError',
        },
        1,
      ],
    ]);
  });
});

describe('telemetry: nothing without a provider', () => {
  it('makes no span and passes the call through untouched when no provider is registered', async () => {
    // The API is installed and a context manager too; no tracer provider is.
    seen.length = 0;
    const tracing = startTracing({ traces: false, metrics: false });
    try {
      await run([job(look, 'c')]);
      expect(seen[0]!.call).to.deep.equal({ id: 'c', args: '{}', idempotencyKey: 'c' });
      expect(tracing.spans()).to.deep.equal([]);
    } finally {
      await tracing.stop();
    }
  });

  it('makes spans but no metrics with only a tracer provider, and metrics alone with only a meter provider', async () => {
    const traces = startTracing({ metrics: false });
    try {
      await run([job(add, 'a', '{"a":1,"b":1}')]);
      expect(traces.spans()).to.have.length(1);
      expect(await traces.metric('gen_ai.client.operation.duration')).to.equal(undefined);
    } finally {
      await traces.stop();
    }
    const meters = startTracing({ traces: false });
    try {
      await run([job(add, 'a', '{"a":1,"b":1}')]);
      expect(meters.spans()).to.deep.equal([]);
      const metric = await meters.metric('gen_ai.client.operation.duration');
      expect(metric!.dataPoints[0]!.value.count).to.equal(1);
    } finally {
      await meters.stop();
    }
  });

  it('turns off for good with registerOpenTelemetry(undefined), and refuses what is not the API', async () => {
    const tracing = startTracing();
    try {
      registerOpenTelemetry(undefined);
      await run([job(add, 'a', '{"a":1,"b":1}')]);
      expect(tracing.spans()).to.deep.equal([]);
      expect(() => registerOpenTelemetry({} as never)).to.throw(
        TypeError,
        'registerOpenTelemetry: expected the @opentelemetry/api module',
      );
      registerOpenTelemetry(await import('@opentelemetry/api'));
      await run([job(add, 'a', '{"a":1,"b":1}')]);
      expect(tracing.spans()).to.have.length(1);
    } finally {
      await tracing.stop();
    }
  });

  it('makes the same spans without a context manager, and the tool’s call names its span', async () => {
    seen.length = 0;
    const tracing = startTracing({ contextManager: false });
    try {
      await run([job(add, 'a', '{"a":1,"b":2}'), job(look, 'b')]);
      const [added, looked] = tracing.spans();
      expect(added!.name).to.equal('execute_tool add');
      expect(attrs(added!)).to.deep.equal({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'add',
        'gen_ai.tool.call.id': 'a',
        'gen_ai.tool.description': 'Adds two numbers.',
        'gen_ai.tool.type': 'function',
      });
      expect(added!.parentSpanContext).to.equal(undefined);
      const { traceId, spanId } = looked!.spanContext();
      expect(seen[0]!.call.trace?.traceparent).to.equal(`00-${traceId}-${spanId}-01`);
      // Without a manager no context is ever active: the tool sees none, as with the API's own.
      expect(seen[0]!.active).to.equal(undefined);
    } finally {
      await tracing.stop();
    }
  });

  it('keeps the context the application made active around the batch', async () => {
    const tracing = startTracing();
    try {
      const tracer = trace.getTracer('app');
      await tracer.startActiveSpan('turn', async (turn) => {
        await run([job(add, 'a', '{"a":1,"b":1}')]);
        expect(trace.getActiveSpan()).to.equal(turn);
        turn.end();
      });
      expect(trace.getSpan(context.active())).to.equal(undefined);
    } finally {
      await tracing.stop();
    }
  });
});
