/**
 * executeBatch with a tracer provider registered (docs/telemetry.md), in virtual time: tracing
 * changes nothing of the schedule (the same events, the same tool subscriptions as without it),
 * and each call's span ends when the call does, with how it ended: done, timed out, cut by the
 * batch's unsubscription, its approval asked and answered first.
 */
import { expect } from 'chai';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { TimeoutError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import { installCallSpans } from '../lib/telemetry/call-spans.js';
import { errorEvent, progressEvent, stubTool } from '../testing/index.js';
import { startTracing, type Tracing } from '../test/support/otel.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

/** Each ended span as `<call id>:<error.type or ok>`, in the order the spans ended. */
const ends = (spans: readonly ReadableSpan[]): string[] =>
  spans.map(
    (s) =>
      `${String(s.attributes['gen_ai.tool.call.id'])}:${String(s.attributes['error.type'] ?? 'ok')}`,
  );

describe('executeBatch traced (marbles)', () => {
  let tracing: Tracing;
  // What importing the package root does (these tests import the engine's modules alone).
  before(() => installCallSpans());
  beforeEach(() => (tracing = startTracing({ metrics: false })));
  afterEach(() => tracing.stop());

  it('keeps the schedule of resources and slots; each span ends with its call', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --p-(f|)', toolEvents); // fs
      const aSubs = '   ^---!';
      const b = cold('      -(f|)', toolEvents); // fs: after a
      const bSubs = '   ----^!';
      const c = cold('  -(f|)', toolEvents);
      const cSubs = '   ^!';
      const expected = '-cp-a(b|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        ...doneEvents('abc'),
        p: progressEvent(0, 'a', 'half'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
    expect(ends(tracing.spans())).to.deep.equal(['c:ok', 'a:ok', 'b:ok']);
  });

  it('ends a timed-out call’s span as timeout, when the timeout fires', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -p------(f|)', toolEvents);
      const aSubs = '   ^--!';
      expectObservable(executeBatch([job(stubTool('a', a), 'a')], { timeout: 3 })).toBe('-p-(t|)', {
        p: progressEvent(0, 'a', 'half'),
        t: errorEvent(0, 'a', new TimeoutError(3)),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
    expect(ends(tracing.spans())).to.deep.equal(['a:timeout']);
  });

  it('ends the span of a running call as cancelled when the batch is unsubscribed; a call that never started has none', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -----(f|)', toolEvents); // fs
      const aSubs = '   ^-!';
      const b = cold('  -(f|)', toolEvents); // fs: never starts
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
      ];
      expectObservable(executeBatch(jobs), '^-!').toBe('---');
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
    expect(ends(tracing.spans())).to.deep.equal(['a:cancelled']);
  });

  it('starts a span when its approval is asked: the answer is an event, then the tool runs', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('    -(f|)', toolEvents);
      const aSubs = '   --^!';
      const yes = cold('--(y|)', { y: true });
      expectObservable(executeBatch([job(stubTool('a', a), 'a')], { approve: () => yes })).toBe(
        '---(a|)',
        doneEvents('a'),
      );
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
    const [span] = tracing.spans();
    expect(span!.events.map((e) => e.name)).to.deep.equal([
      'agenttool.approval.requested',
      'agenttool.approval.answered',
    ]);
  });
});
