import { expect } from 'chai';
import { lastValueFrom, Observable, of, Subject, toArray } from 'rxjs';
import type { Tool, ToolContext, ToolEvent } from '../../lib/contract.js';
import { ToolPanicError } from '../../lib/errors.js';
import { executeBatch, executeCalls, type Job } from '../../operators/index.js';
import { final, progress, stubTool } from '../../testing/index.js';

const job = (tool: Tool, id: string): Job => ({ tool, call: { id, args: '' } });

describe('executeBatch: one call', () => {
  it('runs the teardown of a tool that emits its final inside subscribe and never completes', async () => {
    let tornDown = false;
    const tool = stubTool(
      'a',
      () =>
        new Observable<ToolEvent>((subscriber) => {
          subscriber.next(final('done'));
          return () => (tornDown = true);
        }),
    );
    const events = await lastValueFrom(executeBatch([job(tool, 'a')]).pipe(toArray()));
    expect(events).to.deep.equal([
      { index: 0, callId: 'a', final: true, result: { output: 'done' } },
    ]);
    expect(tornDown).to.equal(true);
  });

  it('ignores what a tool emits synchronously after its final', async () => {
    const tool = stubTool(
      'a',
      of(progress('half'), final('done'), progress('late'), final('again')),
    );
    const events = await lastValueFrom(executeBatch([job(tool, 'a')]).pipe(toArray()));
    expect(events).to.deep.equal([
      { index: 0, callId: 'a', final: false, result: { output: 'half' } },
      { index: 0, callId: 'a', final: true, result: { output: 'done' } },
    ]);
  });

  it('takes the final as the end of the call: the teardown runs before the final is seen', () => {
    const log: string[] = [];
    const finals = new Subject<ToolEvent>();
    const tool = stubTool(
      'a',
      () =>
        new Observable<ToolEvent>((subscriber) => {
          const inner = finals.subscribe(subscriber);
          return () => {
            log.push('teardown');
            inner.unsubscribe();
          };
        }),
    );
    executeBatch([job(tool, 'a')]).subscribe({
      next: (event) => log.push(`event ${event.final ? 'final' : 'progress'}`),
      complete: () => log.push('complete'),
    });
    finals.next(progress('half'));
    finals.next(final('done'));
    expect(log).to.deep.equal(['event progress', 'teardown', 'event final', 'complete']);
    expect(finals.observed).to.equal(false);
  });

  it('completes with a ToolPanicError when execute returns something that is not an observable', async () => {
    const tool = { name: 'bad', description: '', execute: () => undefined } as unknown as Tool;
    const [event] = await lastValueFrom(executeBatch([job(tool, 'b')]).pipe(toArray()));
    expect(event.error).to.be.instanceOf(ToolPanicError);
    expect((event.error as ToolPanicError).tool).to.equal('bad');
  });

  it('keeps the stack of what a tool threw on its ToolPanicError, not in the message', async () => {
    const thrown = new Error('line one\nline two');
    const tool = stubTool('bad', () => {
      throw thrown;
    });
    const [event] = await lastValueFrom(executeBatch([job(tool, 'b')]).pipe(toArray()));
    expect(event.error?.message).to.equal('tool "bad" panicked: line one line two');
    expect(event.error?.stack).to.equal(thrown.stack);
    expect((event.error as ToolPanicError).value).to.equal(thrown);
  });

  it('never aborts the signal of a call that has ended, even when the batch is then unsubscribed', () => {
    const contexts: ToolContext[] = [];
    const hang = new Subject<ToolEvent>();
    const done = stubTool('done', (_call, context) => {
      contexts.push(context);
      return new Observable<ToolEvent>((subscriber) => subscriber.next(final('ok')));
    });
    const hangs = stubTool('hangs', (_call, context) => {
      contexts.push(context);
      return hang;
    });
    const subscription = executeBatch([job(done, 'a'), job(hangs, 'b')]).subscribe();
    subscription.unsubscribe();
    expect(contexts.map((context) => context.signal.aborted)).to.deep.equal([false, true]);
  });

  it('gives each call a context carrying its own call', async () => {
    const seen: string[] = [];
    const tool = stubTool('a', (call, context) => {
      seen.push(`${call.id}=${context.call.id}`);
      return new Observable<ToolEvent>((subscriber) => subscriber.next(final(call.id)));
    });
    await lastValueFrom(executeBatch([job(tool, 'x'), job(tool, 'y')]).pipe(toArray()));
    expect(seen).to.deep.equal(['x=x', 'y=y']);
  });

  it('takes jobs pushed from inside its own event handler, in arrival order', () => {
    const jobs = new Subject<Job>();
    const echo = stubTool(
      'echo',
      (call) => new Observable<ToolEvent>((subscriber) => subscriber.next(final(call.id))),
    );
    const seen: [number, string][] = [];
    let completed = false;
    jobs.pipe(executeCalls({ maxParallel: 1 })).subscribe({
      next: (event) => {
        seen.push([event.index, event.callId]);
        if (seen.length < 5) jobs.next(job(echo, `c${seen.length}`));
        else jobs.complete();
      },
      complete: () => (completed = true),
    });
    jobs.next(job(echo, 'c0'));
    expect(seen).to.deep.equal([
      [0, 'c0'],
      [1, 'c1'],
      [2, 'c2'],
      [3, 'c3'],
      [4, 'c4'],
    ]);
    expect(completed).to.equal(true);
  });
});
