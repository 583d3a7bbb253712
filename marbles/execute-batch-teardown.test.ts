import { expect } from 'chai';
import { concat, finalize, ignoreElements, merge, NEVER, Observable, of, tap, timer } from 'rxjs';
import type { ElicitRequest, ElicitResult, ToolEvent } from '../lib/contract.js';
import { CancelledError, TimeoutError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Approval, ExecuteOptions, Job } from '../operators/job.js';
import { errorEvent, final, finalEvent, questionEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

/** `source`, whose teardown throws `teardown boom` once it has run. */
function throwingTeardown(source: Observable<ToolEvent>): Observable<ToolEvent> {
  return source.pipe(
    finalize(() => {
      throw new Error('teardown boom');
    }),
  );
}

/** Collects what the engine reports through `onTeardownError`, as [message, call id, index]. */
function reports(): { seen: [string, string, number][]; options: ExecuteOptions } {
  const seen: [string, string, number][] = [];
  const options: ExecuteOptions = {
    onTeardownError: (error, job: Job, index) => {
      seen.push([(error as Error).message, job.call.id, index]);
    },
  };
  return { seen, options };
}

describe('executeBatch: a tool whose teardown throws', () => {
  it('keeps the final of a call that ended from a timer, and its siblings run on', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents);
      const aSubs = '   ^-!';
      const b = cold('  ----(f|)', toolEvents);
      const bSubs = '   ^---!';
      const expected = '--a-(b|)';
      const jobs = [job(stubTool('a', throwingTeardown(a)), 'a'), job(stubTool('b', b), 'b')];
      expectObservable(executeBatch(jobs, options)).toBe(expected, doneEvents('ab'));
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
    expect(seen).to.deep.equal([['teardown boom', 'a', 0]]);
  });

  it('keeps the final of a call that ended inside subscribe, and a sibling its result', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      const sync = throwingTeardown(concat(of(final('done')), NEVER));
      const b = cold('  --(f|)', toolEvents);
      const expected = 'a-(b|)';
      const jobs = [job(stubTool('a', sync), 'a'), job(stubTool('b', b), 'b')];
      expectObservable(executeBatch(jobs, options)).toBe(expected, doneEvents('ab'));
    });
    expect(seen).to.deep.equal([['teardown boom', 'a', 0]]);
  });

  it('reports the teardown of a call that ended and completed inside subscribe', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      // rxjs runs the teardown as subscribe returns it, the subscriber being closed already.
      const sync = new Observable<ToolEvent>((subscriber) => {
        subscriber.next(final('done'));
        subscriber.complete();
        return () => {
          throw new Error('teardown boom');
        };
      });
      const b = cold('  --(f|)', toolEvents);
      const expected = 'a-(b|)';
      const jobs = [job(stubTool('a', sync), 'a'), job(stubTool('b', b), 'b')];
      expectObservable(executeBatch(jobs, options)).toBe(expected, doneEvents('ab'));
    });
    expect(seen).to.deep.equal([['teardown boom', 'a', 0]]);
  });

  it('runs a finalizer a tool adds after its call ended at once, and shows it closed', () => {
    const seen: string[] = [];
    testScheduler().run(({ expectObservable, flush }) => {
      // A producer that keeps its subscriber past the call's end (it gives no teardown).
      const late = new Observable<ToolEvent>((subscriber) => {
        subscriber.next(final('done'));
        timer(3).subscribe(() => {
          seen.push(`closed: ${subscriber.closed}`);
          subscriber.add(() => seen.push('finalizer ran'));
          seen.push('added');
        });
      });
      const jobs = [job(stubTool('a', late), 'a')];
      expectObservable(executeBatch(jobs)).toBe('(a|)', doneEvents('a'));
      flush();
    });
    expect(seen).to.deep.equal(['closed: true', 'finalizer ran', 'added']);
  });

  it('reports every finalizer that throws, together, and runs the rest', () => {
    const { seen, options } = reports();
    const ran: string[] = [];
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  --(f|)', toolEvents);
      const two = new Observable<ToolEvent>((subscriber) => {
        subscriber.add(() => {
          throw new Error('first');
        });
        subscriber.add(() => ran.push('middle'));
        subscriber.add(() => {
          throw new Error('second');
        });
        return a.subscribe(subscriber);
      });
      expectObservable(executeBatch([job(stubTool('a', two), 'a')], options)).toBe(
        '--(a|)',
        doneEvents('a'),
      );
    });
    expect(ran).to.deep.equal(['middle']);
    expect(seen.map(([message]) => message)).to.have.length(1);
    expect(seen[0]![0]).to.match(/first[\s\S]*second/);
  });

  it('still tears down every other running call when the batch is unsubscribed', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ------(f|)', toolEvents);
      const aSubs = '   ^--!';
      const b = cold('  ------(f|)', toolEvents);
      const bSubs = '   ^--!';
      const c = cold('  ------(f|)', toolEvents);
      const cSubs = '   ^--!';
      const unsub = '   ---!';
      const expected = '';
      const jobs = [
        job(stubTool('a', throwingTeardown(a)), 'a'),
        job(stubTool('b', throwingTeardown(b)), 'b'),
        job(stubTool('c', c), 'c'),
      ];
      expectObservable(executeBatch(jobs, options), unsub).toBe(expected);
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
    expect(seen).to.deep.equal([
      ['teardown boom', 'a', 0],
      ['teardown boom', 'b', 1],
    ]);
  });

  it('ends a call cut by its timeout with the TimeoutError', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('  -----(f|)', toolEvents);
      const expected = '--(t|)';
      const jobs = [job(stubTool('a', throwingTeardown(a)), 'a')];
      expectObservable(executeBatch(jobs, { ...options, timeout: 2 })).toBe(expected, {
        t: errorEvent(0, 'a', new TimeoutError(2)),
      });
    });
    expect(seen).to.deep.equal([['teardown boom', 'a', 0]]);
  });

  it('cancels every unfinished job in job order when the signal aborts', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const controller = new AbortController();
      const a = cold('  ------(f|)', toolEvents);
      const aSubs = '   ^-!';
      const b = cold('  ------(f|)', toolEvents);
      const bSubs = '   ^-!';
      const expected = '--(abc|)';
      cold('            --x').subscribe(() => controller.abort());
      const jobs = [
        job(stubTool('a', throwingTeardown(a)), 'a'),
        job(stubTool('b', b), 'b'),
        job(stubTool('c', b), 'c'),
      ];
      const cancelled = new CancelledError();
      expectObservable(
        executeBatch(jobs, { ...options, maxParallel: 2, signal: controller.signal }),
      ).toBe(expected, {
        a: errorEvent(0, 'a', cancelled),
        b: errorEvent(1, 'b', cancelled),
        c: errorEvent(2, 'c', cancelled),
      });
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
    expect(seen).to.deep.equal([['teardown boom', 'a', 0]]);
  });

  it('contains it in executeCalls too', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const a = cold('         --(f|)', toolEvents);
      const b = cold('         --(f|)', toolEvents);
      const source = hot<Job>('a-b|', {
        a: job(stubTool('a', throwingTeardown(a)), 'a'),
        b: job(stubTool('b', b), 'b'),
      });
      const expected = '       --a-(b|)';
      expectObservable(source.pipe(executeCalls(options))).toBe(expected, doneEvents('ab'));
    });
    expect(seen).to.deep.equal([['teardown boom', 'a', 0]]);
  });

  it('reports with console.error when no onTeardownError is given, in one line', () => {
    const lines: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void lines.push(args);
    try {
      testScheduler().run(({ cold, expectObservable }) => {
        const a = cold('  -(f|)', toolEvents);
        const expected = '-(a|)';
        const tool = stubTool('reader', throwingTeardown(a));
        expectObservable(executeBatch([job(tool, 'r1')])).toBe(expected, {
          a: finalEvent(0, 'r1', 'done'),
        });
      });
    } finally {
      console.error = original;
    }
    expect(lines).to.deep.equal([
      ['agenttool: the teardown of call "r1" (tool "reader") threw: Error: teardown boom'],
    ]);
  });

  it('contains an onTeardownError that throws itself', () => {
    const lines: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void lines.push(args);
    try {
      testScheduler().run(({ cold, expectObservable }) => {
        const a = cold('  -(f|)', toolEvents);
        const b = cold('  --(f|)', toolEvents);
        const expected = '-a(b|)';
        const jobs = [job(stubTool('a', throwingTeardown(a)), 'a'), job(stubTool('b', b), 'b')];
        const onTeardownError = () => {
          throw new Error('reporter boom');
        };
        expectObservable(executeBatch(jobs, { onTeardownError })).toBe(expected, doneEvents('ab'));
      });
    } finally {
      console.error = original;
    }
    expect(lines).to.have.length(1);
    expect(String(lines[0][0])).to.match(/onTeardownError threw: Error: reporter boom/);
  });

  it('passes on a thrown value that is not an Error as it was thrown', () => {
    const seen: unknown[] = [];
    const odd = new Observable<ToolEvent>((subscriber) => {
      subscriber.next(final('done'));
      return () => {
        throw 'plain string';
      };
    });
    testScheduler().run(({ expectObservable }) => {
      const batch = executeBatch([job(stubTool('a', odd), 'a')], {
        onTeardownError: (error) => void seen.push(error),
      });
      const expected = '(a|)';
      expectObservable(batch).toBe(expected, doneEvents('a'));
    });
    expect(seen).to.deep.equal(['plain string']);
  });
});

describe('executeBatch: an approve or elicitor answer whose teardown throws', () => {
  const question: ElicitRequest = {
    message: 'Which branch?',
    schema: { type: 'object', properties: { branch: { type: 'string' } } },
  };
  const accepted: ElicitResult = { action: 'accept', content: { branch: 'main' } };

  /** `answer`, whose teardown throws `<what> teardown boom`. */
  function throwing<T>(answer: Observable<T>, what: string): Observable<T> {
    return answer.pipe(
      finalize(() => {
        throw new Error(`${what} teardown boom`);
      }),
    );
  }

  /** A tool emitting `events` that asks `question` at frame `at`. */
  function asking(events: Observable<ToolEvent>, at: number) {
    return stubTool('ask', (_call, context) =>
      merge(
        events,
        timer(at).pipe(
          tap(() => void context.elicit(question)),
          ignoreElements(),
        ),
      ),
    );
  }

  it('reports it when approve answers, and the approved call runs', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      const yes = throwing(cold<Approval>('--y', { y: true }), 'approve');
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  -(f|)', toolEvents);
      const expected = '-b-(a|)';
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')];
      const approve = (asked: Job) => (asked.call.id === 'a' ? yes : true);
      expectObservable(executeBatch(jobs, { ...options, approve })).toBe(
        expected,
        doneEvents('ab'),
      );
    });
    expect(seen).to.deep.equal([['approve teardown boom', 'a', 0]]);
  });

  it('reports it when a pending approval is cancelled, and the batch completes', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      const controller = new AbortController();
      cold('            ---x').subscribe(() => controller.abort());
      const never = throwing(cold<Approval>('-'), 'approve');
      const b = cold('  -(f|)', toolEvents);
      const expected = '-b-(a|)';
      const jobs = [job(stubTool('a', b), 'a'), job(stubTool('b', b), 'b')];
      const approve = (asked: Job) => (asked.call.id === 'a' ? never : true);
      const batch = executeBatch(jobs, { ...options, approve, signal: controller.signal });
      expectObservable(batch).toBe(expected, {
        a: errorEvent(0, 'a', new CancelledError()),
        b: finalEvent(1, 'b', 'done'),
      });
    });
    expect(seen).to.deep.equal([['approve teardown boom', 'a', 0]]);
  });

  it('reports it when the elicitor answers, and the call goes on', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      const reply = throwing(cold<ElicitResult>('--a', { a: accepted }), 'elicitor');
      const tool = asking(cold('-----(f|)', toolEvents), 1);
      const expected = '-q-a-(f|)';
      const batch = executeBatch([job(tool, 'c1')], { ...options, elicitor: () => reply });
      expectObservable(batch).toBe(expected, {
        q: questionEvent(0, 'c1', question),
        a: questionEvent(0, 'c1', question, accepted),
        f: finalEvent(0, 'c1', 'done'),
      });
    });
    expect(seen).to.deep.equal([['elicitor teardown boom', 'c1', 0]]);
  });

  it('reports it when the call ends with its question open, and the call has its final', () => {
    const { seen, options } = reports();
    testScheduler().run(({ cold, expectObservable }) => {
      const reply = throwing(cold<ElicitResult>('------a', { a: accepted }), 'elicitor');
      const tool = asking(cold('---(f|)', toolEvents), 1);
      const b = cold('  -------(f|)', toolEvents);
      const expected = '-q-(cf)(b|)';
      const jobs = [job(tool, 'c1'), job(stubTool('b', b), 'b')];
      const batch = executeBatch(jobs, { ...options, elicitor: () => reply });
      expectObservable(batch).toBe(expected, {
        q: questionEvent(0, 'c1', question),
        c: questionEvent(0, 'c1', question, { action: 'cancel' }),
        f: finalEvent(0, 'c1', 'done'),
        b: finalEvent(1, 'b', 'done'),
      });
    });
    expect(seen).to.deep.equal([['elicitor teardown boom', 'c1', 0]]);
  });

  it('reports it in one console.error line naming what it was, without onTeardownError', () => {
    const lines: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void lines.push(args);
    try {
      testScheduler().run(({ cold, expectObservable }) => {
        const yes = throwing(cold<Approval>('-y', { y: true }), 'approve');
        const reply = throwing(cold<ElicitResult>('-a', { a: accepted }), 'elicitor');
        const tool = asking(cold('----(f|)', toolEvents), 1);
        const batch = executeBatch([job(tool, 'c1')], {
          approve: () => yes,
          elicitor: () => reply,
        });
        expectObservable(batch).toBe('--qa-(f|)', {
          q: questionEvent(0, 'c1', question),
          a: questionEvent(0, 'c1', question, accepted),
          f: finalEvent(0, 'c1', 'done'),
        });
      });
    } finally {
      console.error = original;
    }
    expect(lines).to.deep.equal([
      [
        'agenttool: the teardown of approve\'s answer for call "c1" (tool "ask") threw: Error: approve teardown boom',
      ],
      [
        'agenttool: the teardown of the elicitor\'s answer for call "c1" (tool "ask") threw: Error: elicitor teardown boom',
      ],
    ]);
  });
});
