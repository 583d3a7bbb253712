import { executeBatch } from '../operators/execute-batch.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

describe('executeBatch: resources (rule 5)', () => {
  it('runs calls of one resource one after another in job order, the rest alongside', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents); // fs
      const b = cold('-(f|)', toolEvents); // no resource
      const c = cold('--(f|)', toolEvents); // fs, after a
      const d = cold('----(f|)', toolEvents); // shell
      const e = cold('-(f|)', toolEvents); // shell, after d
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
        job(stubTool('d', d, { resource: 'shell' }), 'd'),
        job(stubTool('e', e, { resource: 'shell' }), 'e'),
      ];
      expectObservable(executeBatch(jobs)).toBe('-b-ad(ce|)', doneEvents('abcde'));
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('^!');
      expectSubscriptions(c.subscriptions).toBe('---^-!');
      expectSubscriptions(d.subscriptions).toBe('^---!');
      expectSubscriptions(e.subscriptions).toBe('----^!');
    });
  });

  it('keeps a chain of three in job order whatever their durations', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('----(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('--(f|)', toolEvents);
      const shell = { resource: 'shell:session' };
      const jobs = [
        job(stubTool('a', a, shell), 'a'),
        job(stubTool('b', b, shell), 'b'),
        job(stubTool('c', c, shell), 'c'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^---!');
      expectSubscriptions(b.subscriptions).toBe('----^!');
      expectSubscriptions(c.subscriptions).toBe('-----^-!');
    });
  });

  it('shares a resource between two different tools that name it', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const bash = cold('--(f|)', toolEvents);
      const restart = cold('-(f|)', toolEvents);
      const jobs = [
        job(stubTool('bash', bash, { resource: 'shell' }), 'b1'),
        job(stubTool('restart', restart, { resource: 'shell' }), 'r1'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(bash.subscriptions).toBe('^-!');
      expectSubscriptions(restart.subscriptions).toBe('--^!');
    });
  });

  it('starts the next call of a resource after a failure of the one before', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('exit 1');
      const a = cold('--#', toolEvents, failure);
      const b = cold('-(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
      ];
      expectObservable(executeBatch(jobs)).toBe('--a(b|)', {
        a: errorEvent(0, 'a', failure),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('--^!');
    });
  });

  it('counts the calls of every chain against the one bound', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('--(f|)', toolEvents);
      const c = cold('--(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'x' }), 'a'),
        job(stubTool('b', b, { resource: 'y' }), 'b'),
        job(stubTool('c', c, { resource: 'z' }), 'c'),
      ];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('^-!');
      expectSubscriptions(c.subscriptions).toBe('--^-!');
    });
  });
});
