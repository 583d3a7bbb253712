import { expect } from 'chai';
import { executeBatch } from '../operators/execute-batch.js';
import type { Job } from '../operators/job.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

describe('executeBatch: a synchronous onStart', () => {
  it('runs when a call really starts (with its slot and its turn), and the tool starts at once', () => {
    const started: [number, string][] = [];
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectSubscriptions }) => {
      const a = cold('          --(f|)', toolEvents); // fs
      const aSubs = '           ^-!';
      const b = cold('            -(f|)', toolEvents); // fs: its turn comes at 2
      const bSubs = '           --^!';
      const c = cold('          -(f|)', toolEvents); // its slot comes at 1
      const cSubs = '           ^!';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('c', c), 'c'),
        job(stubTool('d', cold('-(f|)', toolEvents)), 'd'),
      ];
      const onStart = (startedJob: Job, index: number) => {
        started.push([scheduler.now(), `${index}:${startedJob.call.id}`]);
      };
      executeBatch(jobs, { maxParallel: 2, onStart }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
    expect(started).to.deep.equal([
      [0, '0:a'],
      [0, '2:c'],
      [1, '3:d'],
      [2, '1:b'],
    ]);
  });

  it('refuses a call by throwing: the job completes with that error and its tool never runs', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const refusal = new Error('denied by policy');
      const a = cold('  --(f|)', toolEvents);
      const b = cold('  --(f|)', toolEvents);
      const bSubs = '   ^-!';
      const expected = 'a-(b|)';
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')];
      const onStart = (started: Job) => {
        if (started.call.id === 'a') throw refusal;
      };
      expectObservable(executeBatch(jobs, { maxParallel: 1, onStart })).toBe(expected, {
        a: errorEvent(0, 'a', refusal),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('wraps a thrown value that is not an Error in one', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  --(f|)', toolEvents);
      const expected = '(a|)';
      const onStart = () => {
        throw 'no';
      };
      expectObservable(executeBatch([job(stubTool('a', a), 'a')], { onStart })).toBe(expected, {
        a: errorEvent(0, 'a', new Error('no')),
      });
    });
  });
});
