import { expect } from 'chai';
import { executeBatch } from '../operators/execute-batch.js';
import { stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

describe('executeBatch: the slot policy (rule 6)', () => {
  it('gives a freed slot to the earliest job whose turn has come, before later free jobs', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ---(f|)', toolEvents); // fs
      const aSubs = '   ^--!';
      const b = cold('  -(f|)', toolEvents);
      const bSubs = '   ^!';
      const c = cold('     -(f|)', toolEvents); // fs: its turn comes when a ends, at 3
      const cSubs = '   ---^!';
      const d = cold('   ------(f|)', toolEvents);
      const dSubs = '   -^-----!';
      const e = cold('      -(f|)', toolEvents); // waits at 3 although free: c is earlier
      const eSubs = '   ----^!';
      const expected = '-b-ace-(d|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
        job(stubTool('d', d), 'd'),
        job(stubTool('e', e), 'e'),
      ];
      expectObservable(executeBatch(jobs, { maxParallel: 2 })).toBe(expected, doneEvents('abcde'));
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
      expectSubscriptions(e.subscriptions).toBe(eSubs);
    });
  });

  it('lets a later free job take a slot while an earlier job waits for its resource', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('----(f|)', toolEvents); // fs
      const aSubs = ' ^---!';
      const b = cold('    -(f|)', toolEvents); // fs: its turn has not come
      const bSubs = ' ----^!';
      const c = cold('-(f|)', toolEvents); // takes the second slot at once
      const cSubs = ' ^!';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it('fills slots freed in the same frame in job order', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const long = cold('                               --(f|)', toolEvents);
      const short = [
        cold('                                          -(f|)', toolEvents),
        cold('                                          -(f|)', toolEvents),
        cold('                                          -(f|)', toolEvents),
      ];
      const jobs = [
        job(stubTool('l1', long), 'l1'),
        job(stubTool('l2', long), 'l2'),
        ...short.map((stub, i) => job(stubTool(`s${i}`, stub), `s${i}`)),
      ];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(long.subscriptions).toBe(['^-!', '^-!']);
      expectSubscriptions(short[0].subscriptions).toBe('--^!');
      expectSubscriptions(short[1].subscriptions).toBe('--^!');
      expectSubscriptions(short[2].subscriptions).toBe('---^!');
    });
  });

  it('gives the same schedule for the same timings', () => {
    // Two runs, each with fresh stubs on a fresh scheduler: [frame, job index] of every final.
    const schedule = (): number[][] => {
      const seen: number[][] = [];
      const scheduler = testScheduler();
      scheduler.run(({ cold }) => {
        const tools = ['--', '-', '---', '-', '--'].map((d, i) =>
          stubTool(`t${i}`, cold(`${d}(f|)`, toolEvents), { resource: i % 2 === 0 ? 'even' : '' }),
        );
        const batch = executeBatch(
          tools.map((tool, i) => job(tool, `c${i}`)),
          { maxParallel: 2 },
        );
        batch.subscribe((event) => seen.push([scheduler.now(), event.index]));
      });
      return seen;
    };
    const first = schedule();
    expect(first).to.deep.equal([
      [1, 1],
      [2, 0],
      [2, 3],
      [5, 2],
      [7, 4],
    ]);
    expect(schedule()).to.deep.equal(first);
  });
});
