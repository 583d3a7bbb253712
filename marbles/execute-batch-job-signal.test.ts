import { expect } from 'chai';
import { ignoreElements, merge, Observable, tap, timer } from 'rxjs';
import type { ElicitResult, ToolContext, ToolEvent } from '../lib/contract.js';
import { CancelledError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Job } from '../operators/job.js';
import {
  errorEvent,
  finalEvent,
  progressEvent,
  questionEvent,
  stubTool,
} from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

/** A job whose own signal is `controller`'s. */
function cancellable(tool: Job['tool'], id: string, controller: AbortController): Job {
  return { ...job(tool, id), signal: controller.signal };
}

/** Aborts `controller` at virtual frame `frame` (with `reason` when given). */
function abortAt(frame: number, controller: AbortController, reason?: unknown): void {
  timer(frame).subscribe(() => controller.abort(reason));
}

/** A stub that keeps the context of each of its calls. */
function watched(
  name: string,
  source: Observable<ToolEvent>,
  contexts: ToolContext[],
  resource = '',
) {
  return stubTool(
    name,
    (_call, context) => {
      contexts.push(context);
      return source;
    },
    { resource },
  );
}

const cancelled = new CancelledError();

describe('executeBatch: a job cancelled by its own signal', () => {
  it('running: ends that call alone, its tool unsubscribed and its context signal aborted', () => {
    const contexts: ToolContext[] = [];
    const controller = new AbortController();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-p-----(f|)', toolEvents);
      const b = cold('----(f|)', toolEvents);
      const jobs = [
        cancellable(watched('a', a, contexts), 'a', controller),
        job(stubTool('b', b), 'b'),
      ];
      abortAt(3, controller);
      expectObservable(executeBatch(jobs)).toBe('-p-a(b|)', {
        p: progressEvent(0, 'a', 'half'),
        a: errorEvent(0, 'a', cancelled),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('^---!');
    });
    expect(contexts[0]!.signal.aborted).to.equal(true);
    expect(contexts[0]!.signal.reason).to.deep.equal(cancelled);
  });

  it('waiting for a slot: ends at once, its tool never starts, the next job takes the slot', () => {
    const controller = new AbortController();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a), 'a'),
        cancellable(stubTool('b', b), 'b', controller),
        job(stubTool('c', c), 'c'),
      ];
      abortAt(1, controller);
      expectObservable(executeBatch(jobs, { maxParallel: 1 })).toBe('-b-a(c|)', {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', cancelled),
        c: finalEvent(2, 'c', 'done'),
      });
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe('---^!');
    });
  });

  it('waiting for its resource turn: ends at once, and the chain goes on to the next call', () => {
    const controller = new AbortController();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const x = cold('-(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a, { resource: 'fs' }), 'a'),
        cancellable(stubTool('b', b, { resource: 'fs' }), 'b', controller),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
        job(stubTool('x', x), 'x'),
      ];
      abortAt(2, controller);
      expectObservable(executeBatch(jobs)).toBe('-xba(c|)', {
        ...doneEvents('abcx'),
        b: errorEvent(1, 'b', cancelled),
        x: finalEvent(3, 'x', 'done'),
      });
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe('---^!');
    });
  });

  it('in onStart: ends at once, its tool never starts, its slot goes to the next job', () => {
    const controller = new AbortController();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const jobs = [cancellable(stubTool('a', a), 'a', controller), job(stubTool('b', b), 'b')];
      const onStart = (started: Job) =>
        started.call.id === 'a' ? new Promise<void>(() => undefined) : undefined;
      abortAt(2, controller);
      expectObservable(executeBatch(jobs, { maxParallel: 1, onStart })).toBe('--a(b|)', {
        a: errorEvent(0, 'a', cancelled),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe('--^!');
    });
  });

  it('already aborted: its final comes first, at subscription, and its tool never starts', () => {
    const controller = new AbortController();
    controller.abort();
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const jobs = [job(stubTool('a', a), 'a'), cancellable(stubTool('b', b), 'b', controller)];
      expectObservable(executeBatch(jobs, { maxParallel: 1 })).toBe('b(a|)', {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', cancelled),
      });
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('aborted after its final: nothing happens', () => {
    const controller = new AbortController();
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('----(f|)', toolEvents);
      const jobs = [cancellable(stubTool('a', a), 'a', controller), job(stubTool('b', b), 'b')];
      abortAt(2, controller);
      expectObservable(executeBatch(jobs)).toBe('-a--(b|)', doneEvents('ab'));
    });
  });

  it('ends with the reason when it is a CancelledError, and a CancelledError carrying another', () => {
    const stopped = new CancelledError('stopped by Ann');
    const why = new Error('too slow');
    const first = new AbortController();
    const second = new AbortController();
    let events: unknown[] = [];
    testScheduler().run(({ cold }) => {
      const never = cold<ToolEvent>('-');
      const jobs = [
        cancellable(stubTool('a', never), 'a', first),
        cancellable(stubTool('b', never), 'b', second),
      ];
      abortAt(1, first, stopped);
      abortAt(1, second, why);
      executeBatch(jobs).subscribe((event) => (events = [...events, event]));
    });
    expect(events).to.deep.equal([
      errorEvent(0, 'a', stopped),
      errorEvent(1, 'b', new CancelledError('too slow')),
    ]);
    expect(((events[1] as { error: Error }).error as Error).cause).to.equal(why);
  });

  it('answers an open question cancel, shown before the final', async () => {
    const controller = new AbortController();
    const answers: Promise<ElicitResult>[] = [];
    const question = { message: 'Go?', schema: { type: 'object' as const, properties: {} } };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const reply = cold<ElicitResult>('------a|', { a: { action: 'decline' } });
      const tool = stubTool('a', (_call, context) =>
        merge(
          cold('------(f|)', toolEvents),
          timer(1).pipe(
            tap(() => answers.push(context.elicit(question))),
            ignoreElements(),
          ),
        ),
      );
      abortAt(3, controller);
      const options = { elicitor: () => reply };
      expectObservable(executeBatch([cancellable(tool, 'a', controller)], options)).toBe(
        '-q-(cf|)',
        {
          q: questionEvent(0, 'a', question),
          c: questionEvent(0, 'a', question, { action: 'cancel' }),
          f: errorEvent(0, 'a', cancelled),
        },
      );
      expectSubscriptions(reply.subscriptions).toBe('-^-!');
    });
    expect(await answers[0]).to.deep.equal({ action: 'cancel' });
  });

  it('gets no second final when the batch signal aborts after the job signal did', () => {
    const own = new AbortController();
    const batch = new AbortController();
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('---------(f|)', toolEvents);
      const jobs = [
        job(stubTool('a', a), 'a'),
        cancellable(stubTool('b', a), 'b', own),
        cancellable(stubTool('c', a, { resource: 'fs' }), 'c', own),
        job(stubTool('d', a), 'd'),
      ];
      abortAt(1, own);
      abortAt(6, batch);
      const options = { maxParallel: 1, signal: batch.signal };
      expectObservable(executeBatch(jobs, options)).toBe('-(bc)-(ad|)', {
        a: errorEvent(0, 'a', cancelled),
        b: errorEvent(1, 'b', cancelled),
        c: errorEvent(2, 'c', cancelled),
        d: errorEvent(3, 'd', cancelled),
      });
    });
  });
});

describe('executeCalls: a job cancelled by its own signal', () => {
  it('ends that call alone, running or waiting, and one aborted on arrival at once', () => {
    const running = new AbortController();
    const waiting = new AbortController();
    const early = new AbortController();
    early.abort();
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-----(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const jobs = hot<Job>('a-b-c|', {
        a: cancellable(stubTool('a', a, { resource: 'fs' }), 'a', running),
        b: cancellable(stubTool('b', b, { resource: 'fs' }), 'b', waiting),
        c: cancellable(stubTool('c', c), 'c', early),
      });
      abortAt(3, waiting);
      abortAt(5, running);
      expectObservable(jobs.pipe(executeCalls())).toBe('---bc(a|)', {
        a: errorEvent(0, 'a', cancelled),
        b: errorEvent(1, 'b', cancelled),
        c: errorEvent(2, 'c', cancelled),
      });
      expectSubscriptions(a.subscriptions).toBe('^----!');
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });
});
