import { expect } from 'chai';
import { Observable, of } from 'rxjs';
import type { ToolContext, ToolEvent } from '../lib/contract.js';
import { CancelledError, TimeoutError } from '../lib/errors.js';
import { batchState, type CallState } from '../operators/batch-state.js';
import { DETACHED_OUTPUT } from '../operators/detached-output.js';
import { detachedResultItem } from '../operators/detached-result-item.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Approval, Job } from '../operators/job.js';
import { toOutputItems } from '../operators/to-output-items.js';
import { turnItems } from '../operators/turn-items.js';
import {
  detachedEvent,
  errorEvent,
  final,
  finalEvent,
  progressEvent,
  stubTool,
  type StubProperties,
} from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

/** A stub that detaches (unless `properties` says otherwise) and keeps each call's context. */
function detaching(
  name: string,
  source: Observable<ToolEvent>,
  contexts: ToolContext[] = [],
  properties: StubProperties = {},
) {
  const execute = (_call: unknown, context: ToolContext) => {
    contexts.push(context);
    return source;
  };
  return stubTool(name, execute, { detach: true, ...properties });
}

describe('executeBatch: detached calls', () => {
  it('emits a detached event when the call starts, then its final when it ends', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --p---(f|)', toolEvents);
      const aSubs = '   ^-----!';
      const b = cold('  -(f|)', toolEvents);
      const expected = 'dba---(A|)';
      const jobs = [job(detaching('a', a), 'a'), job(stubTool('b', b), 'b')];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        d: detachedEvent(0, 'a'),
        b: finalEvent(1, 'b', 'done'),
        a: progressEvent(0, 'a', 'half'),
        A: finalEvent(0, 'a', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('tells the model the call started and that its result will come later', () => {
    expect(DETACHED_OUTPUT).to.equal(
      'started in the background; its result will be reported later',
    );
  });

  it('gives the turn its output items before the detached call ends, then its result as a message', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  --(f|)', toolEvents);
      const b = cold('  ---------(f|)', toolEvents);
      const expected = '--t------(m|)';
      const jobs = [job(stubTool('a', a), 'a'), job(detaching('b', b), 'b')];
      expectObservable(executeBatch(jobs).pipe(turnItems(jobs))).toBe(expected, {
        t: [
          { type: 'function_call_output', call_id: 'a', output: 'done' },
          { type: 'function_call_output', call_id: 'b', output: DETACHED_OUTPUT },
        ],
        m: [
          {
            type: 'message',
            role: 'user',
            content: [{ type: 'input_text', text: 'The background call "b" (b) finished: done' }],
          },
        ],
      });
    });
  });

  it('puts the result of a detached call that ends before the turn is sent in the turn itself', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  ----(f|)', toolEvents);
      const b = cold('  --(f|)', toolEvents);
      const expected = '----(t|)';
      const jobs = [job(stubTool('a', a), 'a'), job(detaching('b', b), 'b')];
      expectObservable(executeBatch(jobs).pipe(turnItems(jobs))).toBe(expected, {
        t: [
          { type: 'function_call_output', call_id: 'a', output: 'done' },
          { type: 'function_call_output', call_id: 'b', output: 'done' },
        ],
      });
    });
  });

  it('gives a batch without detached calls the same events, and its turn once, at the end', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  --(f|)', toolEvents);
      const b = cold('  ----(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b, { detach: false }), 'b')];
      expectObservable(executeBatch(jobs)).toBe('--a-(b|)', {
        a: finalEvent(0, 'a', 'done'),
        b: finalEvent(1, 'b', 'done'),
      });
      expectObservable(executeBatch(jobs).pipe(turnItems(jobs))).toBe('----(t|)', {
        t: toOutputItems(jobs, [{ result: { output: 'done' } }, { result: { output: 'done' } }]),
      });
    });
  });

  it('cancels a detached call on unsubscribe: its tool is unsubscribed and its signal aborts', () => {
    const contexts: ToolContext[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ---------(f|)', toolEvents);
      const aSubs = '   ^---!';
      const unsub = '   ----!';
      const expected = 't---';
      const jobs = [job(detaching('a', a, contexts), 'a')];
      expectObservable(executeBatch(jobs).pipe(turnItems(jobs)), unsub).toBe(expected, {
        t: [{ type: 'function_call_output', call_id: 'a', output: DETACHED_OUTPUT }],
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
    expect(contexts).to.have.length(1);
    expect(contexts[0]!.signal.aborted).to.equal(true);
    expect(contexts[0]!.signal.reason).to.be.instanceOf(CancelledError);
  });

  it("lets a job's own signal cancel a detached call, which then ends with a CancelledError", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const controller = new AbortController();
      const a = cold('  ---------(f|)', toolEvents);
      const aSubs = '   ^--!';
      cold('---x').subscribe(() => controller.abort()); // the job's signal aborts at 3
      const jobs: Job[] = [{ ...job(detaching('a', a), 'a'), signal: controller.signal }];
      expectObservable(executeBatch(jobs)).toBe('d--(c|)', {
        d: detachedEvent(0, 'a'),
        c: errorEvent(0, 'a', new CancelledError()),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it("times a detached call out by the batch's timeout, like any call", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ---------(f|)', toolEvents);
      const jobs = [job(detaching('a', a), 'a')];
      expectObservable(executeBatch(jobs, { timeout: 3 })).toBe('d--(t|)', {
        d: detachedEvent(0, 'a'),
        t: errorEvent(0, 'a', new TimeoutError(3)),
      });
      expectSubscriptions(a.subscriptions).toBe('^--!');
    });
  });

  it("lets the job's detach override the tool's, both ways", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  --(f|)', toolEvents);
      const b = cold('  ----(f|)', toolEvents);
      const jobs: Job[] = [
        { ...job(detaching('a', a), 'a'), detach: false },
        { ...job(stubTool('b', b), 'b'), detach: true },
      ];
      expectObservable(executeBatch(jobs)).toBe('d-a-(b|)', {
        d: detachedEvent(1, 'b'),
        a: finalEvent(0, 'a', 'done'),
        b: finalEvent(1, 'b', 'done'),
      });
    });
  });

  it('keeps slots and resource turns: a detached call holds both until its final', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ----(f|)', toolEvents);
      const aSubs = '   ^---!';
      const b = cold('      ----(f|)', toolEvents);
      const bSubs = '   ----^---!';
      const c = cold('  --(f|)', toolEvents);
      const cSubs = '   ^-!';
      const d = cold('    -------(f|)', toolEvents);
      const dSubs = '   --^------!';
      const expected = 'x-c-(ay)z(w|)';
      const jobs = [
        job(detaching('a', a, [], { resource: 'fs' }), 'a'),
        job(detaching('b', b, [], { resource: 'fs' }), 'b'),
        job(stubTool('c', c), 'c'),
        job(stubTool('d', d), 'd'),
      ];
      // maxParallel 2: a and c start; d takes the slot c frees; b waits for a (same resource).
      expectObservable(executeBatch(jobs, { maxParallel: 2 })).toBe(expected, {
        x: detachedEvent(0, 'a'),
        c: finalEvent(2, 'c', 'done'),
        a: finalEvent(0, 'a', 'done'),
        y: detachedEvent(1, 'b'),
        z: finalEvent(1, 'b', 'done'),
        w: finalEvent(3, 'd', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
    });
  });

  it('detaches a call once it is approved and started, not before', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('     ----(f|)', toolEvents);
      const aSubs = '   ---^---!';
      const yes = cold<Approval>('---y|', { y: true });
      const jobs = [job(detaching('a', a), 'a')];
      expectObservable(executeBatch(jobs, { approve: () => yes })).toBe('---d---(a|)', {
        d: detachedEvent(0, 'a'),
        a: finalEvent(0, 'a', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('emits no detached event for a call that ends while its tool is subscribed', () => {
    testScheduler().run(({ expectObservable }) => {
      const jobs = [job(detaching('a', of(final('done'))), 'a')];
      expectObservable(executeBatch(jobs)).toBe('(a|)', { a: finalEvent(0, 'a', 'done') });
    });
  });

  it('detaches calls of executeCalls too, once each has started', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const a = cold('  ----(f|)', toolEvents);
      const tool = detaching('a', a);
      const source = hot('-x-|', { x: job(tool, 'a') });
      expectObservable(source.pipe(executeCalls())).toBe('-d---(a|)', {
        d: detachedEvent(0, 'a'),
        a: finalEvent(0, 'a', 'done'),
      });
    });
  });

  it('shows a detached call running, flagged detached, in batchState', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  ----(f|)', toolEvents);
      const jobs = [job(detaching('a', a), 'a')];
      const view = (calls: readonly CallState[]) => {
        const call = calls[0]!;
        return `${call.phase}${call.detached === true ? ' detached' : ''}`;
      };
      const states = new Observable<string>((subscriber) =>
        executeBatch(jobs)
          .pipe(batchState(jobs))
          .subscribe({
            next: (calls) => subscriber.next(view(calls)),
            complete: () => subscriber.complete(),
          }),
      );
      expectObservable(states).toBe('(wr)(d|)', {
        w: 'waiting',
        r: 'running detached',
        d: 'done detached',
      });
    });
  });
});

describe('detachedResultItem', () => {
  const jobs = [job(stubTool('build_report', of(final('x')), { detach: true }), 'c1')];

  it('reports a result as a user message naming the call and its tool', () => {
    expect(detachedResultItem(finalEvent(0, 'c1', 'report for Q3'), jobs)).to.deep.equal({
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: 'The background call "c1" (build_report) finished: report for Q3',
        },
      ],
    });
  });

  it('keeps content parts after the heading', () => {
    const image = { type: 'input_image' as const, image_url: 'data:image/png;base64,AA==' };
    const event = finalEvent(0, 'c1', [image]);
    expect(detachedResultItem(event, jobs).content).to.deep.equal([
      { type: 'input_text', text: 'The background call "c1" (build_report) finished:' },
      image,
    ]);
  });

  it("reports a failure with the error's message, once, without its stack", () => {
    const event = errorEvent(0, 'c1', new Error('disk full'));
    expect(detachedResultItem(event, jobs).content).to.deep.equal([
      { type: 'input_text', text: 'The background call "c1" (build_report) failed: disk full' },
    ]);
  });

  it('refuses an event that is not a final event', () => {
    expect(() => detachedResultItem(detachedEvent(0, 'c1'), jobs)).to.throw(
      TypeError,
      'detachedResultItem: event of call "c1" is not a final event of the batch',
    );
  });
});
