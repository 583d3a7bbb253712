import { expect } from 'chai';
import { defer, from, Observable, of, take, tap } from 'rxjs';
import type { ToolContext, ToolEvent } from '../lib/contract.js';
import { CancelledError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import { errorEvent, final, finalEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

/** A stub that keeps the context of each of its calls. */
function watched(
  name: string,
  source: Observable<ToolEvent>,
  contexts: ToolContext[],
  resource = '',
) {
  const execute = (_call: unknown, context: ToolContext) => {
    contexts.push(context);
    return source;
  };
  return stubTool(name, execute, { resource });
}

describe('executeBatch: cancellation (rule 8)', () => {
  it('unsubscribes every running call on unsubscribe, aborts their signals, starts nothing more', () => {
    const contexts: ToolContext[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents);
      const aSubs = '   ^!';
      const b = cold('  -----(f|)', toolEvents);
      const bSubs = '   ^--!';
      const c = cold('   -----(f|)', toolEvents);
      const cSubs = '   -^-!';
      const d = cold('  -(f|)', toolEvents);
      const unsub = '   ---!';
      const expected = '-a-';
      const jobs = [
        job(watched('a', a, contexts), 'a'),
        job(watched('b', b, contexts), 'b'),
        job(watched('c', c, contexts), 'c'),
        job(watched('d', d, contexts), 'd'),
      ];
      expectObservable(executeBatch(jobs, { maxParallel: 2 }), unsub).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe([]);
    });
    expect(contexts.map((context) => context.signal.aborted)).to.deep.equal([false, true, true]);
    expect(contexts[1].signal.reason).to.be.instanceOf(CancelledError);
  });

  it('aborts a call signal before its tool is unsubscribed, so the teardown sees it', () => {
    let abortedAtTeardown: boolean | undefined;
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold('-----(f|)', toolEvents);
      const unsub = '      --!';
      const expected = '';
      const tool = stubTool(
        'a',
        (_call, context) =>
          new Observable<ToolEvent>((subscriber) => {
            const inner = events.subscribe(subscriber);
            return () => {
              abortedAtTeardown = context.signal.aborted;
              inner.unsubscribe();
            };
          }),
      );
      expectObservable(executeBatch([job(tool, 'a')]), unsub).toBe(expected);
    });
    expect(abortedAtTeardown).to.equal(true);
  });

  it('completes every unfinished job with a CancelledError in job order when the signal aborts', () => {
    const contexts: ToolContext[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const controller = new AbortController();
      const a = cold('  -(f|)', toolEvents);
      const aSubs = '   ^!';
      const b = cold('  ------(f|)', toolEvents); // fs, running at the abort
      const bSubs = '   ^--!';
      const c = cold('   ------(f|)', toolEvents); // running at the abort
      const cSubs = '   -^-!';
      const d = cold('  -(f|)', toolEvents); // fs, waiting for b
      const e = cold('  -(f|)', toolEvents); // waiting for a slot
      const expected = '-a-(bcde|)';
      const jobs = [
        job(watched('a', a, contexts), 'a'),
        job(watched('b', b, contexts, 'fs'), 'b'),
        job(watched('c', c, contexts), 'c'),
        job(watched('d', d, contexts, 'fs'), 'd'),
        job(watched('e', e, contexts), 'e'),
      ];
      cold('            ---x').subscribe(() => controller.abort());
      const cancelled = new CancelledError();
      expectObservable(executeBatch(jobs, { maxParallel: 2, signal: controller.signal })).toBe(
        expected,
        {
          a: finalEvent(0, 'a', 'done'),
          b: errorEvent(1, 'b', cancelled),
          c: errorEvent(2, 'c', cancelled),
          d: errorEvent(3, 'd', cancelled),
          e: errorEvent(4, 'e', cancelled),
        },
      );
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe([]);
      expectSubscriptions(e.subscriptions).toBe([]);
    });
    expect(contexts.map((context) => context.signal.aborted)).to.deep.equal([false, true, true]);
  });

  it('orders the cancelled jobs by index, a waiting job before a later running one', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const controller = new AbortController();
      const a = cold('  ------(f|)', toolEvents); // fs, running
      const aSubs = '   ^--!';
      const b = cold('  -(f|)', toolEvents); // ends, freeing a slot at 1
      const c = cold('  -(f|)', toolEvents); // fs, waits for a
      const d = cold('   ------(f|)', toolEvents); // starts at 1, running
      const dSubs = '   -^-!';
      const expected = '-b-(acd|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
        job(stubTool('d', d), 'd'),
      ];
      cold('            ---x').subscribe(() => controller.abort());
      const cancelled = new CancelledError();
      expectObservable(executeBatch(jobs, { maxParallel: 2, signal: controller.signal })).toBe(
        expected,
        {
          a: errorEvent(0, 'a', cancelled),
          b: finalEvent(1, 'b', 'done'),
          c: errorEvent(2, 'c', cancelled),
          d: errorEvent(3, 'd', cancelled),
        },
      );
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(c.subscriptions).toBe([]);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
    });
  });

  it('runs no tool and cancels every job at once when the signal is already aborted', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  -(f|)', toolEvents);
      const expected = '(ab|)';
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b, { resource: 'fs' }), 'b')];
      const signal = AbortSignal.abort();
      const cancelled = new CancelledError();
      expectObservable(executeBatch(jobs, { signal })).toBe(expected, {
        a: errorEvent(0, 'a', cancelled),
        b: errorEvent(1, 'b', cancelled),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('does nothing when the signal aborts after the batch has completed', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const controller = new AbortController();
      const a = cold('  -(f|)', toolEvents);
      const expected = '-(a|)';
      cold('            ---x').subscribe(() => controller.abort());
      expectObservable(
        executeBatch([job(stubTool('a', a), 'a')], { signal: controller.signal }),
      ).toBe(expected, { a: finalEvent(0, 'a', 'done') });
    });
  });

  it('stops at the first event when the consumer takes only one', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  ---(f|)', toolEvents);
      const bSubs = '   ^!';
      const c = cold('  -(f|)', toolEvents);
      const expected = '-(a|)';
      const jobs = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      expectObservable(executeBatch(jobs, { maxParallel: 2 }).pipe(take(1))).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });
});

describe('executeBatch: a consumer that stops early', () => {
  /** Synchronous tools that note each call they run. */
  function syncJobs(names: string, runs: string[]) {
    return [...names].map((name) =>
      job(
        stubTool(
          name,
          defer(() => {
            runs.push(name);
            return of(final('done'));
          }),
        ),
        name,
      ),
    );
  }

  it('runs no further synchronous tool once take(1) has its event', () => {
    const runs: string[] = [];
    testScheduler().run(({ expectObservable }) => {
      const expected = '(a|)';
      expectObservable(executeBatch(syncJobs('abcd', runs)).pipe(take(1))).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
    });
    expect(runs).to.deep.equal(['a']);
  });

  it('runs no further synchronous tool, and reads no further job, in executeCalls', () => {
    const runs: string[] = [];
    const read: string[] = [];
    testScheduler().run(({ expectObservable }) => {
      const source = from(syncJobs('abcd', runs)).pipe(tap((j) => read.push(j.call.id)));
      const expected = '(a|)';
      expectObservable(source.pipe(executeCalls(), take(1))).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
    });
    expect(runs).to.deep.equal(['a']);
    expect(read).to.deep.equal(['a']);
  });
});
