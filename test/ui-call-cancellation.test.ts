/**
 * Cancelling one call of a batch (the web front's per-row Cancel), in virtual time: the call ends
 * with one CancelledError final event, its tool is unsubscribed at that frame, and the rest of the
 * batch, its resource chain included, goes on as before.
 */
import { expect } from 'chai';
import { finalize, NEVER, Observable } from 'rxjs';
import { CancelledError, chains, executeBatch, ToolPanicError, type ToolEvent } from '../index.js';
import { errorEvent, final, finalEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from '../marbles/support.js';
import { CallCancellation, CANCELLED_BY_USER } from '../cli/ui/call-cancellation.js';

const cancelled = new CancelledError(CANCELLED_BY_USER);

describe('web front: cancelling one call', () => {
  it('ends a running call with a CancelledError and unsubscribes its tool; the chain goes on', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ------(f|)', toolEvents);
      const aSubs = '   ^--!';
      const b = cold('     --(f|)', toolEvents);
      const bSubs = '   ---^-!';
      const c = cold('  ----(f|)', toolEvents);
      const cSubs = '   ^---!';
      const expected = '---ac(b|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'r' }), 'a'),
        job(stubTool('b', b, { resource: 'r' }), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      const cancellation = new CallCancellation();
      scheduler.schedule(() => cancellation.cancel(0), 3);
      scheduler.schedule(() => cancellation.cancel(0), 4); // asked twice: nothing more happens
      scheduler.schedule(() => cancellation.cancel(2), 5); // c has ended: nothing happens
      expectObservable(executeBatch(cancellation.wrap(jobs))).toBe(expected, {
        a: errorEvent(0, 'a', cancelled),
        b: finalEvent(1, 'b', 'done'),
        c: finalEvent(2, 'c', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it('ends a waiting call when its turn comes, without running its tool', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ------(f|)', toolEvents);
      const aSubs = '   ^-----!';
      const b = cold('  --(f|)', toolEvents);
      const expected = '------(ab|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'r' }), 'a'),
        job(stubTool('b', b, { resource: 'r' }), 'b'),
      ];
      const cancellation = new CallCancellation();
      scheduler.schedule(() => cancellation.cancel(1), 1);
      expectObservable(executeBatch(cancellation.wrap(jobs))).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', cancelled),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('still reports a tool that completes without a final event as a contract break', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  --|', toolEvents);
      const expected = '--(a|)';
      const jobs = [job(stubTool('a', a), 'a')];
      expectObservable(executeBatch(new CallCancellation().wrap(jobs))).toBe(expected, {
        a: errorEvent(
          0,
          'a',
          new ToolPanicError('a', undefined, 'completed without a final event'),
        ),
      });
    });
  });

  it("passes on to the batch's report what a cancelled tool's teardown throws", () => {
    const seen: string[] = [];
    const onTeardownError = (error: unknown): void => {
      seen.push((error as Error).message);
    };
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ------(f|)', toolEvents);
      const aSubs = '   ^-!';
      const expected = '--(a|)';
      const throwing = a.pipe(
        finalize(() => {
          throw new Error('teardown boom');
        }),
      );
      const cancellation = new CallCancellation();
      scheduler.schedule(() => cancellation.cancel(0), 2);
      const jobs = cancellation.wrap([job(stubTool('a', throwing), 'a')]);
      expectObservable(executeBatch(jobs, { onTeardownError })).toBe(expected, {
        a: errorEvent(0, 'a', cancelled),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
    expect(seen).to.deep.equal(['teardown boom']);
  });

  it('passes on the teardown of a tool that ended inside subscribe, its final kept', () => {
    const seen: string[] = [];
    const onTeardownError = (error: unknown): void => {
      seen.push((error as Error).message);
    };
    testScheduler().run(({ expectObservable }) => {
      const sync = new Observable<ToolEvent>((subscriber) => {
        subscriber.next(final('done'));
        subscriber.complete();
        return () => {
          throw new Error('teardown boom');
        };
      });
      const jobs = new CallCancellation().wrap([job(stubTool('a', sync), 'a')]);
      const expected = '(a|)';
      expectObservable(executeBatch(jobs, { onTeardownError })).toBe(expected, {
        a: finalEvent(0, 'a', 'done'),
      });
    });
    expect(seen).to.deep.equal(['teardown boom']);
  });

  it('keeps every property of the tool but execute, so the batch schedules as before', () => {
    const tool = stubTool('t', NEVER, {
      resource: 'shell:session',
      annotations: { title: 'T' },
      description: 'a tool',
    });
    const serial = stubTool('s', NEVER, { sequential: true });
    const jobs = [job(tool, 'x'), job(tool, 'y'), job(serial, 'z')];
    const wrapped = new CallCancellation().wrap(jobs);
    expect(wrapped.map((j) => j.call)).to.deep.equal(jobs.map((j) => j.call));
    expect(wrapped[0]!.tool).to.include({
      name: 't',
      resource: 'shell:session',
      description: 'a tool',
    });
    expect(wrapped[0]!.tool.annotations).to.deep.equal({ title: 'T' });
    expect(chains(wrapped)).to.deep.equal(chains(jobs));
    expect(wrapped[0]!.tool).to.not.equal(wrapped[1]!.tool); // one wrapper per call
  });
});
