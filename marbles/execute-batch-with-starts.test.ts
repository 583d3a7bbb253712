import { executeBatchWithStarts } from '../operators/execute-batch-with-starts.js';
import { final, finalEvent, progress, progressEvent, stubTool } from '../testing/index.js';
import { job, testScheduler } from './support.js';

describe('executeBatchWithStarts (marbles)', () => {
  it('puts a start in the stream when a call starts, before its events: the doc diagram', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const aEvents = cold('--p--(A|)', { p: progress('half'), A: final('a done') });
      const aEventsSubs = ' ^----!';
      const bEvents = cold('     -----(B|)', { B: final('b done') });
      const bEventsSubs = ' -----^----!';
      const expected = '    s-p--(aS)-(b|)';
      const jobs = [job(stubTool('a', aEvents), 'a'), job(stubTool('b', bEvents), 'b')];
      expectObservable(executeBatchWithStarts(jobs, { maxParallel: 1 })).toBe(expected, {
        s: { index: 0, callId: 'a', started: true },
        p: progressEvent(0, 'a', 'half'),
        a: finalEvent(0, 'a', 'a done'),
        S: { index: 1, callId: 'b', started: true },
        b: finalEvent(1, 'b', 'b done'),
      });
      expectSubscriptions(aEvents.subscriptions).toBe(aEventsSubs);
      expectSubscriptions(bEvents.subscriptions).toBe(bEventsSubs);
    });
  });
});
