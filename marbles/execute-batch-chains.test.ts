import { executeBatch } from '../operators/execute-batch.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

describe('executeBatch: resources (rule 5)', () => {
  it('runs calls of one resource one after another in job order, the rest alongside', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ---(f|)', toolEvents); // fs
      const aSubs = '   ^--!';
      const b = cold('  -(f|)', toolEvents); // no resource
      const bSubs = '   ^!';
      const c = cold('     --(f|)', toolEvents); // fs, after a
      const cSubs = '   ---^-!';
      const d = cold('  ----(f|)', toolEvents); // shell
      const dSubs = '   ^---!';
      const e = cold('      -(f|)', toolEvents); // shell, after d
      const eSubs = '   ----^!';
      const expected = '-b-ad(ce|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
        job(stubTool('d', d, { resource: 'shell' }), 'd'),
        job(stubTool('e', e, { resource: 'shell' }), 'e'),
      ];
      expectObservable(executeBatch(jobs)).toBe(expected, doneEvents('abcde'));
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
      expectSubscriptions(e.subscriptions).toBe(eSubs);
    });
  });

  it('keeps a chain of three in job order whatever their durations', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('----(f|)', toolEvents);
      const aSubs = ' ^---!';
      const b = cold('    -(f|)', toolEvents);
      const bSubs = ' ----^!';
      const c = cold('     --(f|)', toolEvents);
      const cSubs = ' -----^-!';
      const shell = { resource: 'shell:session' };
      const jobs = [
        job(stubTool('a', a, shell), 'a'),
        job(stubTool('b', b, shell), 'b'),
        job(stubTool('c', c, shell), 'c'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it('shares a resource between two different tools that name it', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const bash = cold('   --(f|)', toolEvents);
      const bashSubs = '    ^-!';
      const restart = cold('  -(f|)', toolEvents);
      const restartSubs = ' --^!';
      const jobs = [
        job(stubTool('bash', bash, { resource: 'shell' }), 'b1'),
        job(stubTool('restart', restart, { resource: 'shell' }), 'r1'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(bash.subscriptions).toBe(bashSubs);
      expectSubscriptions(restart.subscriptions).toBe(restartSubs);
    });
  });

  it('starts the next call of a resource after a failure of the one before', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('exit 1');
      const a = cold('  --#', toolEvents, failure);
      const aSubs = '   ^-!';
      const b = cold('    -(f|)', toolEvents);
      const bSubs = '   --^!';
      const expected = '--a(b|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
      ];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        a: errorEvent(0, 'a', failure),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('counts the calls of every chain against the one bound', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const aSubs = ' ^-!';
      const b = cold('--(f|)', toolEvents);
      const bSubs = ' ^-!';
      const c = cold('  --(f|)', toolEvents);
      const cSubs = ' --^-!';
      const jobs = [
        job(stubTool('a', a, { resource: 'x' }), 'a'),
        job(stubTool('b', b, { resource: 'y' }), 'b'),
        job(stubTool('c', c, { resource: 'z' }), 'c'),
      ];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });
});
