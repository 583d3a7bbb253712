import { CancelledError } from '../lib/errors.js';
import { executeCalls } from '../operators/execute-calls.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

describe('executeCalls: jobs that arrive over time', () => {
  it('starts each call on arrival, indexes by arrival, and completes after the last final', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('     -----(f|)', toolEvents);
      const aSubs = '      ^----!';
      const b = cold('        -(f|)', toolEvents);
      const bSubs = '      ---^!';
      const source = cold('a--b|', {
        a: job(stubTool('a', a), 'a'),
        b: job(stubTool('b', b), 'b'),
      });
      const sourceSubs = ' ^---!';
      const expected = '   ----b(a|)';
      expectObservable(source.pipe(executeCalls())).toBe(expected, doneEvents('ab'));
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('runs a sequential call alone: after every earlier call, before every later one', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('     ------(f|)', toolEvents);
      const aSubs = '      ^-----!';
      const s = cold('           --(f|)', toolEvents);
      const sSubs = '      ------^-!';
      const b = cold('             -(f|)', toolEvents);
      const bSubs = '      --------^!';
      const source = cold('a-s-b|', {
        a: job(stubTool('a', a), 'a'),
        s: job(stubTool('s', s, { sequential: true }), 's'),
        b: job(stubTool('b', b), 'b'),
      });
      const expected = '   ------a-s(b|)';
      expectObservable(source.pipe(executeCalls())).toBe(expected, doneEvents('asb'));
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(s.subscriptions).toBe(sSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('makes a sequential call wait for earlier calls still queued behind a resource', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('     ---(f|)', toolEvents); // fs
      const aSubs = '      ^--!';
      const b = cold('        --(f|)', toolEvents); // fs, after a: ends at 5
      const bSubs = '      ---^-!';
      const s = cold('          -(f|)', toolEvents);
      const sSubs = '      -----^!';
      const source = cold('abs|', {
        a: job(stubTool('a', a, { resource: 'fs' }), 'a'),
        b: job(stubTool('b', b, { resource: 'fs' }), 'b'),
        s: job(stubTool('s', s, { sequential: true }), 's'),
      });
      source.pipe(executeCalls()).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(s.subscriptions).toBe(sSubs);
    });
  });

  it('applies the bound and resources across arrivals', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('     ----(f|)', toolEvents); // fs
      const aSubs = '      ^---!';
      const b = cold('      ----(f|)', toolEvents);
      const bSubs = '      -^---!';
      const c = cold('         -(f|)', toolEvents); // fs: waits for a
      const cSubs = '      ----^!';
      const d = cold('          -(f|)', toolEvents); // waits for a slot
      const dSubs = '      -----^!';
      const source = cold('abcd|', {
        a: job(stubTool('a', a, { resource: 'fs' }), 'a'),
        b: job(stubTool('b', b), 'b'),
        c: job(stubTool('c', c, { resource: 'fs' }), 'c'),
        d: job(stubTool('d', d), 'd'),
      });
      source.pipe(executeCalls({ maxParallel: 2 })).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
    });
  });

  it('runs every call one at a time in arrival order with sequential: true', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('     ---(f|)', toolEvents);
      const aSubs = '      ^--!';
      const b = cold('        -(f|)', toolEvents);
      const bSubs = '      ---^!';
      const source = cold('ab|', { a: job(stubTool('a', a), 'a'), b: job(stubTool('b', b), 'b') });
      source.pipe(executeCalls({ sequential: true })).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('completes when the source completes after the last final', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('     -(f|)', toolEvents);
      const source = cold('a-----|', { a: job(stubTool('a', a), 'a') });
      const expected = '   -a----|';
      expectObservable(source.pipe(executeCalls())).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
    });
  });

  it('cancels the running calls and passes a source error on', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('stream broke');
      const a = cold('     -----(f|)', toolEvents);
      const aSubs = '      ^-!';
      const source = cold('a-#', { a: job(stubTool('a', a), 'a') }, failure);
      const expected = '   --#';
      expectObservable(source.pipe(executeCalls())).toBe(expected, undefined, failure);
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('stops reading the source and cancels every unfinished job when the signal aborts', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const controller = new AbortController();
      const a = cold('     ------(f|)', toolEvents);
      const aSubs = '      ^--!';
      const b = cold('     -(f|)', toolEvents);
      const c = cold('     -(f|)', toolEvents);
      const source = cold('ab---c|', {
        a: job(stubTool('a', a), 'a'),
        b: job(stubTool('b', b), 'b'),
        c: job(stubTool('c', c), 'c'),
      });
      const sourceSubs = ' ^--!';
      const expected = '   ---(ab|)';
      cold('               ---x').subscribe(() => controller.abort());
      const cancelled = new CancelledError();
      const calls = source.pipe(executeCalls({ maxParallel: 1, signal: controller.signal }));
      expectObservable(calls).toBe(expected, {
        a: errorEvent(0, 'a', cancelled),
        b: errorEvent(1, 'b', cancelled),
      });
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('reads nothing and completes at once when the signal is already aborted', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('     -(f|)', toolEvents);
      const source = cold('a|', { a: job(stubTool('a', a), 'a') });
      const expected = '   |';
      expectObservable(source.pipe(executeCalls({ signal: AbortSignal.abort() }))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe([]);
      expectSubscriptions(a.subscriptions).toBe([]);
    });
  });

  it('unsubscribes the source and every running call on unsubscribe', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('     -----(f|)', toolEvents);
      const aSubs = '      ^-!';
      const b = cold('     -(f|)', toolEvents);
      const source = cold('a----b|', {
        a: job(stubTool('a', a), 'a'),
        b: job(stubTool('b', b), 'b'),
      });
      const sourceSubs = ' ^-!';
      const unsub = '      --!';
      const expected = '';
      expectObservable(source.pipe(executeCalls()), unsub).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('runs each subscription anew', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('                                             -(f|)', toolEvents);
      // prettier-ignore
      const calls = cold('                                         a|', { a: job(stubTool('a', a), 'a') }).pipe(executeCalls());
      // prettier-ignore
      expectObservable(calls).toBe('                               -(a|)', { a: finalEvent(0, 'a', 'done') });
      // prettier-ignore
      expectObservable(calls, '                                    --^').toBe('---(a|)', { a: finalEvent(0, 'a', 'done') });
      expectSubscriptions(a.subscriptions).toBe(['^!', '--^!']);
    });
  });
});
