import { expect } from 'chai';
import { CancelledError, ToolPanicError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import {
  errorEvent,
  final,
  finalEvent,
  progress,
  progressEvent,
  stubTool,
} from '../testing/index.js';
import { job, testScheduler } from './support.js';

const values = { p: progress('half'), q: progress('late'), f: final('done'), g: final('again') };

describe('executeBatch: events (rules 1, 2, 7 and 9)', () => {
  it('emits a job progress, then its one final event, then completes (rule 1)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --p--(f|)', values);
      const aSubs = '   ^----!';
      const expected = '--p--(f|)';
      expectObservable(executeBatch([job(stubTool('a', a), 'a1')])).toBe(expected, {
        p: progressEvent(0, 'a1', 'half'),
        f: finalEvent(0, 'a1', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('ignores everything a tool emits after its final event, and unsubscribes it there (rule 1)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --p--f--q--g--|', values);
      const aSubs = '   ^----!';
      const expected = '--p--(f|)';
      expectObservable(executeBatch([job(stubTool('a', a), 'a1')])).toBe(expected, {
        p: progressEvent(0, 'a1', 'half'),
        f: finalEvent(0, 'a1', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('emits completions in completion order, not job order (rule 2)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -----(f|)', values);
      const aSubs = '   ^----!';
      const b = cold('  --p-(f|)', values);
      const bSubs = '   ^---!';
      const c = cold('  -(f|)', values);
      const cSubs = '   ^!';
      const expected = '-cp-b(a|)';
      const jobs = [
        job(stubTool('a', a), 'a1'),
        job(stubTool('b', b), 'b1'),
        job(stubTool('c', c), 'c1'),
      ];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        a: finalEvent(0, 'a1', 'done'),
        b: finalEvent(1, 'b1', 'done'),
        c: finalEvent(2, 'c1', 'done'),
        p: progressEvent(1, 'b1', 'half'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it('turns a tool error into a final event with that error and keeps running the batch (rule 7)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('disk full');
      const a = cold('  --#', values, failure);
      const aSubs = '   ^-!';
      const b = cold('  ----(f|)', values);
      const bSubs = '   ^---!';
      const expected = '--a-(b|)';
      const jobs = [job(stubTool('a', a), 'a1'), job(stubTool('b', b), 'b1')];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        a: errorEvent(0, 'a1', failure),
        b: finalEvent(1, 'b1', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('gives a failing tool, a tool without a final and a good one each their final (rule 7)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('disk full');
      const a = cold('  --#', values, failure);
      const aSubs = '   ^-!';
      const b = cold('  ----|', values);
      const bSubs = '   ^---!';
      const c = cold('  ------(f|)', values);
      const cSubs = '   ^-----!';
      const expected = '--a-b-(c|)';
      const jobs = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        a: errorEvent(0, 'a', failure),
        b: errorEvent(
          1,
          'b',
          new ToolPanicError('b', undefined, 'completed without a final event'),
        ),
        c: finalEvent(2, 'c', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it('turns an error that is not an Error into a ToolPanicError (rule 7)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --#', values, 'boom');
      const aSubs = '   ^-!';
      const expected = '--(a|)';
      expectObservable(executeBatch([job(stubTool('a', a), 'a1')])).toBe(expected, {
        a: errorEvent(0, 'a1', new ToolPanicError('a', 'boom')),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('completes a tool that completes without a final event with a ToolPanicError (rule 7)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --p--|', values);
      const aSubs = '   ^----!';
      const expected = '--p--(a|)';
      expectObservable(executeBatch([job(stubTool('a', a), 'a1')])).toBe(expected, {
        p: progressEvent(0, 'a1', 'half'),
        a: errorEvent(
          0,
          'a1',
          new ToolPanicError('a', undefined, 'completed without a final event'),
        ),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('completes a job whose execute throws with a ToolPanicError and runs the rest (rule 7)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const thrown = new Error('bad wiring');
      const throwing = stubTool('x', () => {
        throw thrown;
      });
      const b = cold('  --(f|)', values);
      const bSubs = '   ^-!';
      const expected = 'x-(b|)';
      const jobs = [job(throwing, 'x1'), job(stubTool('b', b), 'b1')];
      expectObservable(executeBatch(jobs)).toBe(expected, {
        x: errorEvent(0, 'x1', new ToolPanicError('x', thrown)),
        b: finalEvent(1, 'b1', 'done'),
      });
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('emits progress a tool reports through its context, and drops it after the final (rule 1)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('      --(f|)', values);
      const aSubs = '       ^-!';
      const reports = cold('-x--x|');
      const expected = '    -p(f|)';
      const tool = stubTool('a', (_call, context) => {
        reports.subscribe(() => context.progress('working'));
        return a;
      });
      expectObservable(executeBatch([job(tool, 'a1')])).toBe(expected, {
        p: progressEvent(0, 'a1', 'working'),
        f: finalEvent(0, 'a1', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('never errors the batch observable because of a tool (rule 7)', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const tools = [
        stubTool('e', cold('-#', values, new CancelledError())),
        stubTool('s', cold('-#', values, 'not an error')),
        stubTool('c', cold('-|', values)),
        stubTool('t', () => {
          throw 'thrown string';
        }),
      ];
      const batch = executeBatch(tools.map((tool, i) => job(tool, `c${i}`)));
      const expected = '    t(esc|)';
      expectObservable(batch).toBe(expected, {
        e: errorEvent(0, 'c0', new CancelledError()),
        s: errorEvent(1, 'c1', new ToolPanicError('s', 'not an error')),
        c: errorEvent(
          2,
          'c2',
          new ToolPanicError('c', undefined, 'completed without a final event'),
        ),
        t: errorEvent(3, 'c3', new ToolPanicError('t', 'thrown string')),
      });
    });
  });

  it('runs the batch anew for each subscription, sharing nothing (rule 9)', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('   --(f|)', values);
      //                    --(f|)   (a second time, subscribed at 3)
      const first = '    --(f|)';
      const secondSub = '---^';
      const second = '   -----(f|)';
      const aSubs = ['   ^-!', '---^-!'];
      const batch = executeBatch([job(stubTool('a', a), 'a1')]);
      expectObservable(batch).toBe(first, { f: finalEvent(0, 'a1', 'done') });
      expectObservable(batch, secondSub).toBe(second, { f: finalEvent(0, 'a1', 'done') });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('completes at once for an empty batch', () => {
    testScheduler().run(({ expectObservable }) => {
      const expected = '|';
      expectObservable(executeBatch([])).toBe(expected);
    });
  });

  it('gives every final event exactly one of result and error', () => {
    const events: object[] = [];
    testScheduler().run(({ cold }) => {
      const jobs = [
        job(stubTool('a', cold('-(f|)', values)), 'a1'),
        job(stubTool('b', cold('-#', values)), 'b1'),
      ];
      executeBatch(jobs).subscribe((event) => events.push(event));
    });
    expect(events.map((e) => Object.keys(e).sort())).to.deep.equal([
      ['callId', 'final', 'index', 'result'],
      ['callId', 'error', 'final', 'index'],
    ]);
  });
});
