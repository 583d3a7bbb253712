import { executeBatch } from '../operators/execute-batch.js';
import { stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

const finals = doneEvents('abc');

describe('executeBatch: serial batches (rule 4)', () => {
  it('runs one call at a time in job order with sequential: true, ignoring resources', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('--(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c, { resource: 'shell' }), 'c'),
      ];
      expectObservable(executeBatch(jobs, { sequential: true })).toBe('---ab-(c|)', finals);
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('---^!');
      expectSubscriptions(c.subscriptions).toBe('----^-!');
    });
  });

  it('runs the whole batch one call at a time when any tool in it is sequential', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('--(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c, { sequential: true }), 'c'),
      ];
      expectObservable(executeBatch(jobs)).toBe('---ab-(c|)', finals);
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('---^!');
      expectSubscriptions(c.subscriptions).toBe('----^-!');
    });
  });

  it('runs one call at a time in job order with maxParallel 1', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('--(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      expectObservable(executeBatch(jobs, { maxParallel: 1 })).toBe('---ab-(c|)', finals);
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('---^!');
      expectSubscriptions(c.subscriptions).toBe('----^-!');
    });
  });

  it('goes on to the next call after a failure', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--#', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')];
      executeBatch(jobs, { sequential: true }).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('--^!');
    });
  });
});
