import { executeBatch } from '../operators/execute-batch.js';
import type { ExecuteOptions } from '../operators/job.js';
import { stubTool, type StubProperties } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

const finals = doneEvents('abc');

/** Three ways to make a batch serial; each must give the same schedule. */
const serialBatches: [string, StubProperties[], ExecuteOptions][] = [
  [
    'with sequential: true, ignoring resources',
    [{ resource: 'fs' }, {}, { resource: 'shell' }],
    { sequential: true },
  ],
  ['when any tool in it is sequential', [{}, {}, { sequential: true }], {}],
  ['with maxParallel 1', [{}, {}, {}], { maxParallel: 1 }],
];

describe('executeBatch: serial batches (rule 4)', () => {
  for (const [how, properties, options] of serialBatches) {
    it(`runs one call at a time in job order ${how}`, () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const a = cold('  ---(f|)', toolEvents);
        const aSubs = '   ^--!';
        const b = cold('     -(f|)', toolEvents);
        const bSubs = '   ---^!';
        const c = cold('      --(f|)', toolEvents);
        const cSubs = '   ----^-!';
        const expected = '---ab-(c|)';
        const jobs = [
          job(stubTool('a', a, properties[0]), 'a'),
          job(stubTool('b', b, properties[1]), 'b'),
          job(stubTool('c', c, properties[2]), 'c'),
        ];
        expectObservable(executeBatch(jobs, options)).toBe(expected, finals);
        expectSubscriptions(a.subscriptions).toBe(aSubs);
        expectSubscriptions(b.subscriptions).toBe(bSubs);
        expectSubscriptions(c.subscriptions).toBe(cSubs);
      });
    });
  }

  it('goes on to the next call after a failure', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--#', toolEvents);
      const aSubs = ' ^-!';
      const b = cold('  -(f|)', toolEvents);
      const bSubs = ' --^!';
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')];
      executeBatch(jobs, { sequential: true }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });
});
