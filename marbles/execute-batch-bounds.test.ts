import { executeBatch } from '../operators/execute-batch.js';
import { finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

describe('executeBatch: the bound (rule 3)', () => {
  it('runs at most maxParallel calls at once, starting the next as each ends', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents);
      const aSubs = '   ^-!';
      const b = cold('  -----(f|)', toolEvents);
      const bSubs = '   ^----!';
      const c = cold('    --(f|)', toolEvents);
      const cSubs = '   --^-!';
      const d = cold('      ----(f|)', toolEvents);
      const dSubs = '   ----^---!';
      const e = cold('       ---(f|)', toolEvents);
      const eSubs = '   -----^--!';
      const expected = '--a-cb--(de|)';
      const stubs = { a, b, c, d, e };
      const jobs = Object.entries(stubs).map(([id, stub]) => job(stubTool(id, stub), id));
      expectObservable(executeBatch(jobs, { maxParallel: 2 })).toBe(expected, doneEvents('abcde'));
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
      expectSubscriptions(e.subscriptions).toBe(eSubs);
    });
  });

  it('runs 8 calls at once when no bound is given', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      // Ten frames per call, so that the second group of finals lines up with its marble.
      const stub = cold('----------(f|)', toolEvents);
      const expected = ' ----------(abcdefgh)(ij|)';
      const tool = stubTool('t', stub);
      const jobs = Array.from({ length: 10 }, (_, i) => job(tool, `c${i}`));
      const keys = 'abcdefghij';
      expectObservable(executeBatch(jobs)).toBe(
        expected,
        Object.fromEntries([...keys].map((k, i) => [k, finalEvent(i, `c${i}`, 'done')])),
      );
      expectSubscriptions(stub.subscriptions).toBe([
        ...Array<string>(8).fill('^---------!'),
        '----------^---------!',
        '----------^---------!',
      ]);
    });
  });

  for (const maxParallel of [0, -1, Number.NaN]) {
    it(`takes maxParallel ${maxParallel} to mean the default of 8`, () => {
      testScheduler().run(({ cold, expectSubscriptions }) => {
        const stub = cold('--(f|)', toolEvents);
        const tool = stubTool('t', stub);
        const jobs = Array.from({ length: 9 }, (_, i) => job(tool, `c${i}`));
        executeBatch(jobs, { maxParallel }).subscribe();
        expectSubscriptions(stub.subscriptions).toBe([...Array<string>(8).fill('^-!'), '--^-!']);
      });
    });
  }

  it('rounds a fractional bound down', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const stub = cold('--(f|)', toolEvents);
      const tool = stubTool('t', stub);
      const jobs = Array.from({ length: 3 }, (_, i) => job(tool, `c${i}`));
      executeBatch(jobs, { maxParallel: 2.9 }).subscribe();
      expectSubscriptions(stub.subscriptions).toBe(['^-!', '^-!', '--^-!']);
    });
  });

  it('frees the slot of a failed call for the next job', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('-#', toolEvents);
      const aSubs = ' ^!';
      const b = cold('---(f|)', toolEvents);
      const bSubs = ' ^--!';
      const c = cold(' -(f|)', toolEvents);
      const cSubs = ' -^!';
      const jobs = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });
});
