import { expect } from 'chai';
import { map, type Observable } from 'rxjs';
import { CancelledError, ToolPanicError } from '../lib/errors.js';
import { batchState, type CallState } from '../operators/batch-state.js';
import { executeBatchWithStarts } from '../operators/execute-batch-with-starts.js';
import {
  errorEvent,
  final,
  finalEvent,
  progress,
  progressEvent,
  questionEvent,
  stubTool,
} from '../testing/index.js';
import { job, testScheduler } from './support.js';

/** Each call as `phase elapsed`, joined: what a marble can compare at a glance. */
function brief(states: Observable<readonly CallState[]>): Observable<string> {
  return states.pipe(map((calls) => calls.map((c) => `${c.phase} ${c.elapsed}`).join(', ')));
}

const half = { output: 'half way', details: { progress: 1, total: 2 } };

describe('batchState: a batch as a view shows it', () => {
  it('shows a question while it is open: asking with the question, running again once answered', () => {
    const question = {
      message: 'Which branch?',
      schema: { type: 'object' as const, properties: { branch: { type: 'string' as const } } },
    };
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('-s-q-p-a-f|', {
        s: { index: 0, callId: 'a1', started: true as const },
        q: questionEvent(0, 'a1', question),
        p: progressEvent(0, 'a1', half),
        a: questionEvent(0, 'a1', question, { action: 'decline' }),
        f: finalEvent(0, 'a1', 'ok'),
      });
      const states = events.pipe(
        batchState(jobs),
        map(([a]) => `${a!.phase} ${a!.question?.message ?? '-'}`),
      );
      expectObservable(states).toBe('ws-q-p-a-f|', {
        w: 'waiting -',
        s: 'running -',
        q: 'asking Which branch?',
        p: 'asking Which branch?',
        a: 'running -',
        f: 'done -',
      });
    });
  });

  it('clears an open question when the call ends', () => {
    const question = { message: 'Sure?', schema: { type: 'object' as const, properties: {} } };
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('-q-f|', {
        q: questionEvent(0, 'a1', question),
        f: errorEvent(0, 'a1', new CancelledError()),
      });
      const states = events.pipe(
        batchState(jobs),
        map(([a]) => `${a!.phase} ${a!.question === undefined ? '-' : 'q'}`),
      );
      expectObservable(states).toBe('wq-f|', {
        w: 'waiting -',
        q: 'asking q',
        f: 'cancelled -',
      });
    });
  });

  it('folds a start, a progress and a final into the states of its doc diagram', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('                 --s--p---f--|', {
        s: { index: 0, callId: 'a1', started: true as const },
        p: progressEvent(0, 'a1', half),
        f: finalEvent(0, 'a1', 'ok'),
      });
      const expected = '                    w-r--R---d--|';
      const states = events.pipe(
        batchState(jobs),
        map(([a]) => `${a!.phase} ${a!.elapsed} ${a!.progress?.progress ?? '-'}`),
      );
      const values = { w: 'waiting 0 -', r: 'running 0 -', R: 'running 3 1', d: 'done 7 1' };
      expectObservable(states).toBe(expected, values);
      // A view subscribed at 7 gets the latest state at once, from the same run.
      expectObservable(states, '        -------^').toBe('-------R-d--|', values);
      expectSubscriptions(events.subscriptions).toBe('^-----------!');
    });
  });

  it('emits every call waiting on subscription, then a state per change, timed by the scheduler', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = stubTool('a', cold('never'));
      const jobs = [job(a, 'a1'), job(a, 'b1')];
      const events = cold('         --p---a---(b|)', {
        p: progressEvent(0, 'a1', half),
        a: finalEvent(0, 'a1', 'done'),
        b: errorEvent(1, 'b1', new Error('no such file')),
      });
      const expected = '            w-r---d---(f|)';
      expectObservable(brief(events.pipe(batchState(jobs)))).toBe(expected, {
        w: 'waiting 0, waiting 0',
        r: 'running 0, waiting 0', // running from its first progress, which is its start here
        d: 'done 4, waiting 0',
        f: 'done 4, failed 0', // ended without a start or a progress: it did not run for a view
      });
    });
  });

  it('times a call from its start when starts are in the stream', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = stubTool('a', cold('-----p-----(f|)', { p: progress(half), f: final('ok') }));
      const b = stubTool('b', cold('-----(f|)', { f: final('ok') }));
      const jobs = [job(a, 'a1'), job(b, 'b1')];
      const states = executeBatchWithStarts(jobs, { maxParallel: 1 }).pipe(
        batchState(jobs, { maxParallel: 1 }),
      );
      // b waits for a's slot: it starts at 11, when a ends, and ends 5 later.
      const expected = '            (wr)-p-----(dR)-(D|)';
      expectObservable(brief(states)).toBe(expected, {
        w: 'waiting 0, waiting 0',
        r: 'running 0, waiting 0',
        p: 'running 5, waiting 0',
        d: 'done 11, waiting 0',
        R: 'done 11, running 0',
        D: 'done 11, done 5',
      });
    });
  });

  it('keeps the progress, output, error and settled result a view needs', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [
        job(stubTool('a', cold('never')), 'a1'),
        job(stubTool('b', cold('never')), 'b1'),
      ];
      const events = cold('     -p-a-(b|)', {
        p: progressEvent(0, 'a1', half),
        a: finalEvent(0, 'a1', 'line one\n  line two'),
        b: errorEvent(1, 'b1', new CancelledError()),
      });
      const expected = '        wp-a-(b|)';
      const last = events.pipe(
        batchState(jobs),
        map((calls) => calls.map(({ elapsed: _, ...rest }) => rest)),
      );
      const row = (index: number, callId: string, name: string) => ({
        index,
        callId,
        name,
        args: '',
        resource: '',
        after: -1,
      });
      expectObservable(last).toBe(expected, {
        w: [
          { ...row(0, 'a1', 'a'), phase: 'waiting', startedAt: -1, endedAt: -1, message: '' },
          { ...row(1, 'b1', 'b'), phase: 'waiting', startedAt: -1, endedAt: -1, message: '' },
        ],
        p: [
          {
            ...row(0, 'a1', 'a'),
            phase: 'running',
            startedAt: 1,
            endedAt: -1,
            message: 'half way',
            progress: { progress: 1, total: 2 },
          },
          { ...row(1, 'b1', 'b'), phase: 'waiting', startedAt: -1, endedAt: -1, message: '' },
        ],
        a: [
          {
            ...row(0, 'a1', 'a'),
            phase: 'done',
            startedAt: 1,
            endedAt: 3,
            message: 'line one line two',
            progress: { progress: 1, total: 2 },
            output: 'line one\n  line two',
            settled: { result: { output: 'line one\n  line two' } },
          },
          { ...row(1, 'b1', 'b'), phase: 'waiting', startedAt: -1, endedAt: -1, message: '' },
        ],
        b: [
          {
            ...row(0, 'a1', 'a'),
            phase: 'done',
            startedAt: 1,
            endedAt: 3,
            message: 'line one line two',
            progress: { progress: 1, total: 2 },
            output: 'line one\n  line two',
            settled: { result: { output: 'line one\n  line two' } },
          },
          {
            ...row(1, 'b1', 'b'),
            phase: 'cancelled',
            startedAt: -1,
            endedAt: 5,
            message: 'call cancelled',
            error: new CancelledError(),
            settled: { error: new CancelledError() },
          },
        ],
      });
    });
  });

  it('gives a new array on each change and keeps the object of every call that did not change', () => {
    testScheduler().run(({ cold, flush }) => {
      const jobs = [
        job(stubTool('a', cold('never')), 'a1'),
        job(stubTool('b', cold('never')), 'b1'),
      ];
      const events = cold('     -a-b|', {
        a: finalEvent(0, 'a1', 'done'),
        b: finalEvent(1, 'b1', 'done'),
      });
      const seen: (readonly CallState[])[] = [];
      events.pipe(batchState(jobs)).subscribe((calls) => seen.push(calls));
      flush();
      expect(seen).to.have.length(3);
      expect(seen[1]).to.not.equal(seen[0]);
      expect(seen[1]![1]).to.equal(seen[0]![1]); // b did not change when a ended
      expect(seen[2]![0]).to.equal(seen[1]![0]); // a did not change when b ended
    });
  });

  it('emits nothing for an event after a final or of a job it does not know, and passes errors on', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('                 -a-p-x-#', {
        a: finalEvent(0, 'a1', 'done'),
        p: progressEvent(0, 'a1', 'late'),
        x: finalEvent(7, 'x1', 'stray'),
      });
      const expected = '                    wd-----#';
      expectObservable(brief(events.pipe(batchState(jobs)))).toBe(expected, {
        w: 'waiting 0',
        d: 'done 0',
      });
    });
  });

  it('marks a tool that broke the contract failed, and knows the resource chains from the jobs', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const fs = (name: string) => stubTool(name, cold('-----|'), { resource: 'fs' });
      const jobs = [job(fs('a'), 'a1'), job(fs('c'), 'c1')];
      const states = executeBatchWithStarts(jobs).pipe(batchState(jobs));
      const shown = states.pipe(
        map((calls) => calls.map((c) => `${c.phase} ${c.resource} ${c.after}`).join(', ')),
      );
      // a completes without a final at 5 (a ToolPanicError); c, after it on "fs", starts then.
      expectObservable(shown).toBe('(wr)-(dc)-(f|)', {
        w: 'waiting fs -1, waiting fs 0',
        r: 'running fs -1, waiting fs 0',
        d: 'failed fs -1, waiting fs 0',
        c: 'failed fs -1, running fs 0',
        f: 'failed fs -1, failed fs 0',
      });
      // A second view of the same states joins the run: its first state is the latest one.
      expectObservable(states.pipe(map((calls) => calls[0]!.error instanceof ToolPanicError))).toBe(
        '                                               (f)--(tt)-(t|)',
        { f: false, t: true },
      );
    });
  });
});
