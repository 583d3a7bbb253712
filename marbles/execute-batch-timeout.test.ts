import { expect } from 'chai';
import { NEVER, VirtualTimeScheduler } from 'rxjs';
import type { ToolContext } from '../lib/contract.js';
import { TimeoutError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import type { ExecutionEvent } from '../operators/job.js';
import { errorEvent, finalEvent, progressEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

describe('executeBatch: timeout', () => {
  it('cancels a call past the timeout and completes it with a TimeoutError', () => {
    const contexts: ToolContext[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -p------(f|)', toolEvents);
      const aSubs = '   ^--!';
      const expected = '-p-(t|)';
      const tool = stubTool('a', (_call, context) => {
        contexts.push(context);
        return a;
      });
      expectObservable(executeBatch([job(tool, 'a')], { timeout: 3 })).toBe(expected, {
        p: progressEvent(0, 'a', 'half'),
        t: errorEvent(0, 'a', new TimeoutError(3)),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
    expect(contexts[0].signal.aborted).to.equal(true);
    expect(contexts[0].signal.reason).to.be.instanceOf(TimeoutError);
  });

  it('counts the timeout from the tool start, not from the batch start', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents); // fs
      const aSubs = '   ^-!';
      const b = cold('    ----(f|)', toolEvents); // fs: starts at 2, times out at 5
      const bSubs = '   --^--!';
      const expected = '--a--(b|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
      ];
      expectObservable(executeBatch(jobs, { timeout: 3 })).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', new TimeoutError(3)),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('leaves a call that ends in time alone, and its signal never aborts', () => {
    const contexts: ToolContext[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents);
      const aSubs = '   ^-!';
      const expected = '--(a|)';
      const tool = stubTool('a', (_call, context) => {
        contexts.push(context);
        return a;
      });
      expectObservable(executeBatch([job(tool, 'a')], { timeout: 3 })).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
    expect(contexts[0].signal.aborted).to.equal(false);
  });

  it('frees the slot of a timed-out call for the next job', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--------(f|)', toolEvents);
      const aSubs = ' ^-!';
      const b = cold('  -(f|)', toolEvents);
      const bSubs = ' --^!';
      executeBatch([job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')], {
        maxParallel: 1,
        timeout: 2,
      }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('schedules the timeout on the given scheduler', () => {
    // Outside TestScheduler.run, so only the scheduler passed in can fire the timeout.
    const scheduler = new VirtualTimeScheduler();
    const events: ExecutionEvent[] = [];
    executeBatch([job(stubTool('a', NEVER), 'a')], { timeout: 60_000, scheduler }).subscribe(
      (event) => events.push(event),
    );
    expect(events).to.deep.equal([]);
    scheduler.flush();
    expect(events).to.deep.equal([errorEvent(0, 'a', new TimeoutError(60_000))]);
  });

  for (const timeout of [0, -5, Number.NaN]) {
    it(`takes a timeout of ${timeout} to mean none`, () => {
      testScheduler().run(({ cold, expectObservable }) => {
        const a = cold('  -----(f|)', toolEvents);
        const expected = '-----(a|)';
        expectObservable(executeBatch([job(stubTool('a', a), 'a')], { timeout })).toBe(expected, {
          a: finalEvent(0, 'a', 'done'),
        });
      });
    });
  }
});

describe('executeBatch: timeouts no timer can hold', () => {
  it('takes Infinity to mean no timeout: the call runs until it ends', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -p-', toolEvents); // never ends by itself
      const aSubs = '   ^--';
      const expected = '-p-';
      expectObservable(executeBatch([job(stubTool('a', a), 'a')], { timeout: Infinity })).toBe(
        expected,
        { p: progressEvent(0, 'a', 'half') },
      );
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('clamps a timeout past 2^31 - 1 ms to that, the longest a timer waits', () => {
    const scheduler = new VirtualTimeScheduler();
    const seen: [number, ExecutionEvent][] = [];
    executeBatch([job(stubTool('a', NEVER), 'a')], { timeout: 2 ** 40, scheduler }).subscribe(
      (event) => seen.push([scheduler.now(), event]),
    );
    scheduler.flush();
    const max = 2 ** 31 - 1;
    expect(seen).to.deep.equal([[max, errorEvent(0, 'a', new TimeoutError(max))]]);
  });
});
