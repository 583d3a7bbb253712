import { expect } from 'chai';
import { map, type Observable } from 'rxjs';
import { tickElapsed } from '../adapters/angular/tick-elapsed.js';
import { batchState, type CallState } from '../operators/batch-state.js';
import { executeBatchWithStarts } from '../operators/execute-batch-with-starts.js';
import { final, finalEvent, stubTool } from '../testing/index.js';
import { job, testScheduler } from './support.js';

/** Each call as `phase elapsed`, joined: what a marble can compare at a glance. */
function brief(states: Observable<readonly CallState[]>): Observable<string> {
  return states.pipe(map((calls) => calls.map((c) => `${c.phase} ${c.elapsed}`).join(', ')));
}

const started = (index: number, callId: string) => ({ index, callId, started: true as const });

describe('tickElapsed: the clock of a running call', () => {
  it("moves a running call's elapsed every period between its events, and stops once it ends", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('--s--------f|', { s: started(0, 'a1'), f: finalEvent(0, 'a1', 'ok') });
      const states = events.pipe(batchState(jobs), tickElapsed({ period: 3 }));
      expectObservable(brief(states)).toBe('w-r--a--b--d|', {
        w: 'waiting 0',
        r: 'running 0',
        a: 'running 3',
        b: 'running 6',
        d: 'done 9',
      });
    });
  });

  it('counts each running call from its own start, leaves waiting and ended calls as they are', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [
        job(stubTool('a', cold('never')), 'a1'),
        job(stubTool('b', cold('never')), 'b1'),
      ];
      const events = cold('-s-t-f-----g|', {
        s: started(0, 'a1'),
        t: started(1, 'b1'),
        f: finalEvent(0, 'a1', 'ok'),
        g: finalEvent(1, 'b1', 'ok'),
      });
      const states = events.pipe(batchState(jobs), tickElapsed({ period: 4 }));
      expectObservable(brief(states)).toBe('wr-t-f---k-g|', {
        w: 'waiting 0, waiting 0',
        r: 'running 0, waiting 0',
        t: 'running 2, running 0',
        f: 'done 4, running 2',
        k: 'done 4, running 6',
        g: 'done 4, done 8',
      });
    });
  });

  it('keeps the object of a call that did not change, so a view compares by reference', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [
        job(stubTool('a', cold('never')), 'a1'),
        job(stubTool('b', cold('never')), 'b1'),
      ];
      const events = cold('-s------f|', { s: started(0, 'a1'), f: finalEvent(0, 'a1', 'ok') });
      let previous: readonly CallState[] = [];
      const kept = events.pipe(
        batchState(jobs),
        tickElapsed({ period: 5 }),
        map((calls) => {
          const same = calls.map((call, i) => (call === previous[i] ? '=' : '*')).join('');
          previous = calls;
          return same;
        }),
      );
      expectObservable(kept).toBe('ab----c-d|', { a: '**', b: '*=', c: '*=', d: '*=' });
    });
  });

  it("ticks the engine's own run: a tool silent for 250 ms reads 100, 200, then 250 once done", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const slow = stubTool('slow', cold('250ms (f|)', { f: final('ok') }));
      const jobs = [job(slow, 's1')];
      const states = executeBatchWithStarts(jobs).pipe(batchState(jobs), tickElapsed());
      expectObservable(brief(states)).toBe('(wr) 96ms a 99ms b 49ms (d|)', {
        w: 'waiting 0',
        r: 'running 0',
        a: 'running 100',
        b: 'running 200',
        d: 'done 250',
      });
    });
  });

  it('refuses a period that is not a positive finite number of ms', () => {
    for (const period of [0, -5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => tickElapsed({ period })).to.throw(RangeError, /period/);
  });
});
