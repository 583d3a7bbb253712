import { map, type Observable } from 'rxjs';
import { batchState, type CallState } from '../operators/batch-state.js';
import { executeBatchWithStarts } from '../operators/execute-batch-with-starts.js';
import type { Approval, Job } from '../operators/job.js';
import { finalEvent, questionEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

/** Each call as `phase` and its open question's message (`-` when none), joined. */
function shown(states: Observable<readonly CallState[]>): Observable<string> {
  return states.pipe(
    map((calls) => calls.map((c) => `${c.phase} ${c.question?.message ?? '-'}`).join(', ')),
  );
}

const question = {
  message: 'Which branch?',
  schema: { type: 'object' as const, properties: { branch: { type: 'string' as const } } },
};
const start = { index: 0, callId: 'a1', started: true as const };

describe('batchState: a view that subscribes late', () => {
  it('is shown the open question first, then the answer, from the one run of the batch', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('  -s-q---a-f|', {
        s: start,
        q: questionEvent(0, 'a1', question),
        a: questionEvent(0, 'a1', question, { action: 'accept', content: { branch: 'main' } }),
        f: finalEvent(0, 'a1', 'merged'),
      });
      const states = events.pipe(batchState(jobs));
      const first = '        ws-q---a-f|';
      const lateView = '      -----^';
      const late = '          -----q-a-f|';
      const values = {
        w: 'waiting -',
        s: 'running -',
        q: 'asking Which branch?',
        a: 'running -',
        f: 'done -',
      };
      expectObservable(shown(states)).toBe(first, values);
      expectObservable(shown(states), lateView).toBe(late, values);
      expectSubscriptions(events.subscriptions).toBe('^---------!');
    });
  });

  it('is shown a pending approval first: the call approving, with its name and arguments', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = stubTool('deploy', cold('-----(f|)', toolEvents));
      const jobs: Job[] = [{ tool: a, call: { id: 'd1', args: '{"env":"prod"}' } }];
      const yes = cold<Approval>('-----y|', { y: true });
      const states = executeBatchWithStarts(jobs, { approve: () => yes }).pipe(batchState(jobs));
      const row = states.pipe(map(([d]) => `${d!.phase} ${d!.name} ${d!.args}`));
      const values = {
        w: 'waiting deploy {"env":"prod"}',
        a: 'approving deploy {"env":"prod"}',
        r: 'running deploy {"env":"prod"}',
        d: 'done deploy {"env":"prod"}',
      };
      // Approved at 5: waiting for a slot, then running at once; done 5 later.
      expectObservable(row).toBe('    (wa)-(wr)-(d|)', values);
      expectObservable(row, '         ---^').toBe('---a-(wr)-(d|)', values);
    });
  });

  it('runs the batch anew once every view had left: the last one out cancelled it', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('-s-q---a-f|', {
        s: start,
        q: questionEvent(0, 'a1', question),
        a: questionEvent(0, 'a1', question, { action: 'decline' }),
        f: finalEvent(0, 'a1', 'not merged'),
      });
      const states = shown(events.pipe(batchState(jobs)));
      const values = { w: 'waiting -', s: 'running -', q: 'asking Which branch?' };
      expectObservable(states, '       ^---!').toBe('ws-q', values);
      expectObservable(states, '       ------^--!').toBe('------ws-', values);
      expectSubscriptions(events.subscriptions).toBe(['^---!', '------^--!']);
    });
  });

  it('is given the final states and completion once the batch has ended; nothing runs again', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const jobs = [job(stubTool('a', cold('never')), 'a1')];
      const events = cold('-s-f|', { s: start, f: finalEvent(0, 'a1', 'ok') });
      const states = shown(events.pipe(batchState(jobs)));
      const values = { w: 'waiting -', s: 'running -', f: 'done -' };
      expectObservable(states).toBe('      ws-f|', values);
      expectObservable(states, '         --------^').toBe('--------(f|)', values);
      expectSubscriptions(events.subscriptions).toBe('^---!');
    });
  });
});
