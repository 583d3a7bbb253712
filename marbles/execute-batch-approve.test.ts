import { expect } from 'chai';
import { Observable } from 'rxjs';
import { CancelledError, NotApprovedError } from '../lib/errors.js';
import { map, timer } from 'rxjs';
import { batchState } from '../operators/batch-state.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeBatchWithStarts } from '../operators/execute-batch-with-starts.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Approval, Job } from '../operators/job.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

/** An approve that answers each call id from `answers`, and approves the others at once. */
function answering(answers: Record<string, Approval | Observable<Approval> | (() => never)>) {
  return (asked: Job): Approval | Observable<Approval> => {
    const answer = answers[asked.call.id];
    if (typeof answer === 'function') return answer();
    return answer ?? true;
  };
}

describe('executeBatch: approve before a slot', () => {
  it('never holds a slot: under maxParallel 1 the others run while a call waits for its answer', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('--(f|)', toolEvents);
      const c = cold('--(f|)', toolEvents);
      const yes = cold<Approval>('---y|', { y: true });
      const jobs = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      const approve = answering({ a: yes });
      expectObservable(executeBatch(jobs, { maxParallel: 1, approve })).toBe(
        '--b-c-(a|)',
        doneEvents('abc'),
      );
      expectSubscriptions(yes.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('^-!');
      expectSubscriptions(c.subscriptions).toBe('--^-!');
      expectSubscriptions(a.subscriptions).toBe('----^-!');
    });
  });

  it('keeps resource order: a later call of the resource does not overtake one being approved', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const x = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('---y|', { y: true });
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('x', x), 'x'),
      ];
      expectObservable(executeBatch(jobs, { approve: answering({ a: yes }) })).toBe(
        '-x--a(b|)',
        doneEvents('abx'),
      );
      expectSubscriptions(a.subscriptions).toBe('---^!');
      expectSubscriptions(b.subscriptions).toBe('----^!');
      expectSubscriptions(x.subscriptions).toBe('^!');
    });
  });

  it('keeps resource order under maxParallel 1 too, while the others run past the call being approved', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('---y|', { y: true });
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      const options = { maxParallel: 1, approve: answering({ a: yes }) };
      expectObservable(executeBatch(jobs, options)).toBe('-c--a(b|)', doneEvents('abc'));
      expectSubscriptions(c.subscriptions).toBe('^!');
      expectSubscriptions(a.subscriptions).toBe('---^!');
      expectSubscriptions(b.subscriptions).toBe('----^!');
    });
  });

  it('refuses with a NotApprovedError, or the reason given; the tool never runs, its chain goes on', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      const approve = answering({
        a: cold<Approval>('--n|', { n: false }),
        c: { approved: false, reason: 'rm -rf is not allowed here' },
      });
      expectObservable(executeBatch(jobs, { approve })).toBe('c-a(b|)', {
        a: errorEvent(0, 'a', new NotApprovedError('a')),
        b: finalEvent(1, 'b', 'done'),
        c: errorEvent(2, 'c', new NotApprovedError('c', 'rm -rf is not allowed here')),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe('--^!');
      expectSubscriptions(c.subscriptions).toBe([]);
    });
    expect(new NotApprovedError('a').message).to.equal('call "a" was not approved');
  });

  it('refuses only the call whose approve throws, with its message', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', a), 'b')];
      const approve = answering({
        a: () => {
          throw new Error('policy store unreachable');
        },
      });
      expectObservable(executeBatch(jobs, { approve })).toBe('a(b|)', {
        a: errorEvent(0, 'a', new NotApprovedError('a', 'policy store unreachable')),
        b: finalEvent(1, 'b', 'done'),
      });
    });
  });

  it('refuses on an Observable that errors or completes without an answer, or a non-answer', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const jobs = ['a', 'b', 'c'].map((id) => job(stubTool(id, a), id));
      const approve = answering({
        a: cold<Approval>('-#', undefined, new Error('no decision')),
        b: cold<Approval>('--|'),
        c: 'yes' as unknown as Approval,
      });
      expectObservable(executeBatch(jobs, { approve })).toBe('ca(b|)', {
        a: errorEvent(0, 'a', new NotApprovedError('a', 'no decision')),
        b: errorEvent(
          1,
          'b',
          new NotApprovedError(
            'b',
            'call "b" was not approved: approve completed without an answer',
          ),
        ),
        c: errorEvent(
          2,
          'c',
          new NotApprovedError(
            'c',
            'call "c" was not approved: approve answered yes, not an approval',
          ),
        ),
      });
    });
  });

  it('cancels pending approvals on unsubscribe: their Observables are unsubscribed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('-----y|', { y: true });
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', a), 'b')];
      const approve = answering({ a: yes, b: yes });
      expectObservable(executeBatch(jobs, { approve }), '--!').toBe('---');
      expectSubscriptions(yes.subscriptions).toBe(['^-!', '^-!']);
      expectSubscriptions(a.subscriptions).toBe([]);
    });
  });

  it("cancels a pending approval on the batch's signal or the job's own, with a CancelledError final", () => {
    const batch = new AbortController();
    const own = new AbortController();
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('-----y|', { y: true });
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        { ...job(stubTool('b', a), 'b'), signal: own.signal },
        job(stubTool('c', a, { resource: 'fs' }), 'c'),
      ];
      hot('-o-b').subscribe((which) => (which === 'o' ? own : batch).abort());
      const approve = answering({ a: yes, b: yes });
      expectObservable(executeBatch(jobs, { approve, signal: batch.signal })).toBe('-b-(ac|)', {
        a: errorEvent(0, 'a', new CancelledError()),
        b: errorEvent(1, 'b', new CancelledError()),
        c: errorEvent(2, 'c', new CancelledError()),
      });
      expectSubscriptions(yes.subscriptions).toBe(['^--!', '^!']);
      expectSubscriptions(a.subscriptions).toBe([]);
    });
  });

  it('passes the resource turn on when a call waiting for its approval is stopped by its own signal', () => {
    const own = new AbortController();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('-----y|', { y: true });
      const jobs = [
        { ...job(stubTool('a', a, { resource: 'fs' }), 'a'), signal: own.signal },
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
      ];
      timer(2).subscribe(() => own.abort());
      expectObservable(executeBatch(jobs, { approve: answering({ a: yes }) })).toBe('--a(b|)', {
        a: errorEvent(0, 'a', new CancelledError()),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(yes.subscriptions).toBe('^-!');
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe('--^!');
    });
  });

  it('ends a call refused at once only once, when its own signal aborts later', () => {
    const own = new AbortController();
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const jobs = [
        { ...job(stubTool('a', a), 'a'), signal: own.signal },
        job(stubTool('b', a), 'b'),
      ];
      timer(1).subscribe(() => own.abort());
      expectObservable(executeBatch(jobs, { approve: answering({ a: false }) })).toBe('a(b|)', {
        a: errorEvent(0, 'a', new NotApprovedError('a')),
        b: finalEvent(1, 'b', 'done'),
      });
    });
  });

  it('asks before onStart, which runs once the approved call starts', () => {
    const log: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a')];
      const yes = cold<Approval>('--y|', { y: true });
      const approve = (asked: Job, index: number) => {
        log.push(`approve ${asked.call.id} ${index}`);
        return yes;
      };
      const onStart = (started: Job) => void log.push(`start ${started.call.id}`);
      expectObservable(executeBatch(jobs, { approve, onStart })).toBe('---(a|)', doneEvents('a'));
    });
    expect(log).to.deep.equal(['approve a 0', 'start a']);
  });
});

describe('approve, shown and resumed', () => {
  it('batchState shows a call approving while its answer is pending, then waiting, running, done', () => {
    const seen: string[] = [];
    const scheduler = testScheduler();
    scheduler.run(({ cold }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('---(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')];
      const yes = cold<Approval>('-y|', { y: true });
      const options = { maxParallel: 1, approve: answering({ a: yes }) };
      executeBatchWithStarts(jobs, options)
        .pipe(
          batchState(jobs, options),
          map((calls) => calls.map((call) => call.phase).join(' ')),
        )
        .subscribe((phases) => seen.push(`${scheduler.now()}: ${phases}`));
    });
    expect(seen).to.deep.equal([
      '0: waiting waiting',
      '0: approving waiting',
      '0: approving running', // b takes the slot a does not hold
      '1: waiting running', // a approved: it waits for the slot
      '3: waiting done',
      '3: running done',
      '5: done done',
    ]);
  });

  it('asks with the index in the whole batch when a batch is resumed', () => {
    const asked: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', a), 'b')];
      const resume = { started: [{ callId: 'a' }], ended: [finalEvent(0, 'a', 'before')] };
      const approve = (asking: Job, index: number) => {
        asked.push(`${asking.call.id} ${index}`);
        return true;
      };
      expectObservable(executeBatch(jobs, { resume, approve })).toBe('a(b|)', {
        a: finalEvent(0, 'a', 'before'),
        b: finalEvent(1, 'b', 'done'),
      });
    });
    expect(asked).to.deep.equal(['b 1']);
  });
});

describe('executeCalls: approve before a slot', () => {
  it('asks each job as it arrives; a call waiting for its answer blocks nobody', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('---y|', { y: true });
      const source = hot<Job>('a-b|', {
        a: job(stubTool('a', a), 'a'),
        b: job(stubTool('b', a), 'b'),
      });
      const approve = answering({ a: yes });
      expectObservable(source.pipe(executeCalls({ maxParallel: 1, approve }))).toBe(
        '---b(a|)',
        doneEvents('ab'),
      );
      expectSubscriptions(yes.subscriptions).toBe('^--!');
    });
  });

  it('neither asks nor ends twice a job that arrives with its signal aborted', () => {
    const asked: string[] = [];
    const aborted = new AbortController();
    aborted.abort();
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const source = hot<Job>('a-b|', {
        a: { ...job(stubTool('a', a), 'a'), signal: aborted.signal },
        b: job(stubTool('b', a), 'b'),
      });
      const approve = (asking: Job) => {
        asked.push(asking.call.id);
        return false;
      };
      expectObservable(source.pipe(executeCalls({ approve }))).toBe('a-b|', {
        a: errorEvent(0, 'a', new CancelledError()),
        b: errorEvent(1, 'b', new NotApprovedError('b')),
      });
    });
    expect(asked).to.deep.equal(['b']);
  });

  it('holds the calls after a sequential tool back while it waits for its approval', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const s = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('---y|', { y: true });
      const source = hot<Job>('a-s-b|', {
        a: job(stubTool('a', a), 'a'),
        s: job(stubTool('s', s, { sequential: true }), 's'),
        b: job(stubTool('b', b), 'b'),
      });
      expectObservable(source.pipe(executeCalls({ approve: answering({ s: yes }) }))).toBe(
        '-a----s(b|)',
        doneEvents('asb'),
      );
      expectSubscriptions(s.subscriptions).toBe('-----^!');
      expectSubscriptions(b.subscriptions).toBe('------^!');
    });
  });
});

describe('executeBatch: how long an approval is awaited', () => {
  it('is not timed by timeout: a person may answer after it, and the call is timed from its start', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('-----y|', { y: true });
      const jobs = [job(stubTool('a', a), 'a')];
      const options = { approve: answering({ a: yes }), timeout: 2 };
      expectObservable(executeBatch(jobs, options)).toBe('------(a|)', doneEvents('a'));
      expectSubscriptions(yes.subscriptions).toBe('^----!');
      expectSubscriptions(a.subscriptions).toBe('-----^!');
    });
  });

  it('refuses a call whose approval has not come within approveTimeout; the others go on', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-----(f|)', toolEvents);
      const never = cold<Approval>('-');
      const jobs = [job(stubTool('a', a, { resource: 'fs' }), 'a'), job(stubTool('b', b), 'b')];
      const options = { approve: answering({ a: never }), approveTimeout: 3 };
      expectObservable(executeBatch(jobs, options)).toBe('---a-(b|)', {
        a: errorEvent(
          0,
          'a',
          new NotApprovedError('a', 'call "a" was not approved: no answer within 3 ms'),
        ),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(never.subscriptions).toBe('^--!');
      expectSubscriptions(a.subscriptions).toBe([]);
    });
  });

  it('lets an answer that comes in time stand, its timer gone; a later call of the resource waits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('------(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const yes = cold<Approval>('--y|', { y: true });
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
      ];
      const options = { approve: answering({ a: yes }), approveTimeout: 3 };
      expectObservable(executeBatch(jobs, options)).toBe('--------a(b|)', doneEvents('ab'));
      expectSubscriptions(a.subscriptions).toBe('--^-----!');
      expectSubscriptions(b.subscriptions).toBe('--------^!');
    });
  });

  it('refuses in executeCalls too, counted from the call arriving', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const never = cold<Approval>('-');
      const a = cold('-(f|)', toolEvents);
      const source = hot<Job>('-a-b|', {
        a: job(stubTool('a', a), 'a'),
        b: job(stubTool('b', a), 'b'),
      });
      const options = { approve: answering({ b: never }), approveTimeout: 4 };
      expectObservable(source.pipe(executeCalls(options))).toBe('--a----(b|)', {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(
          1,
          'b',
          new NotApprovedError('b', 'call "b" was not approved: no answer within 4 ms'),
        ),
      });
    });
  });
});
