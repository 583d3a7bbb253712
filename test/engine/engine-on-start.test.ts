import { expect } from 'chai';
import { lastValueFrom, Observable, toArray } from 'rxjs';
import type { Tool, ToolEvent } from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import { executeBatch, type ExecutionEvent, type Job } from '../../operators/index.js';
import { final, stubTool } from '../../testing/index.js';

/** A promise with its resolve and reject at hand. */
function deferred(): {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
} {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A tool that counts its subscriptions and ends at once. */
function countingTool(name: string): Tool & { runs: number } {
  const counted = stubTool(
    name,
    () =>
      new Observable<ToolEvent>((subscriber) => {
        counted.runs++;
        subscriber.next(final(`${name} done`));
        subscriber.complete();
      }),
  ) as Tool & { runs: number };
  counted.runs = 0;
  return counted;
}

const job = (tool: Tool, id: string): Job => ({ tool, call: { id, args: '' } });
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('executeBatch: onStart returning a Promise', () => {
  it('holds the slot while the Promise is pending and starts the tool when it resolves', async () => {
    const a = countingTool('a');
    const b = countingTool('b');
    const gates = [deferred(), deferred()];
    const started: number[] = [];
    const events: ExecutionEvent[] = [];
    let completed = false;
    executeBatch([job(a, 'a'), job(b, 'b')], {
      maxParallel: 1,
      onStart: (_job, index) => {
        started.push(index);
        return gates[index].promise;
      },
    }).subscribe({ next: (event) => events.push(event), complete: () => (completed = true) });

    await tick();
    expect(started).to.deep.equal([0]);
    expect(a.runs).to.equal(0);
    gates[0].resolve();
    await tick();
    expect(a.runs).to.equal(1);
    expect(started).to.deep.equal([0, 1]);
    expect(b.runs).to.equal(0);
    gates[1].resolve();
    await tick();
    expect(b.runs).to.equal(1);
    expect(events.map((event) => [event.index, event.result?.output])).to.deep.equal([
      [0, 'a done'],
      [1, 'b done'],
    ]);
    expect(completed).to.equal(true);
  });

  it('completes the job with the rejection and never runs its tool', async () => {
    const a = countingTool('a');
    const b = countingTool('b');
    const refusal = new Error('the user said no');
    const events = await lastValueFrom(
      executeBatch([job(a, 'a'), job(b, 'b')], {
        onStart: (started) =>
          started.call.id === 'a' ? Promise.reject(refusal) : Promise.resolve(),
      }).pipe(toArray()),
    );
    expect(a.runs).to.equal(0);
    expect(b.runs).to.equal(1);
    const finalOfA = events.find((event) => event.index === 0);
    expect(finalOfA).to.deep.equal({ index: 0, callId: 'a', final: true, error: refusal });
    expect(finalOfA?.error).to.equal(refusal);
  });

  it('wraps a rejection that is not an Error', async () => {
    const events = await lastValueFrom(
      executeBatch([job(countingTool('a'), 'a')], { onStart: () => Promise.reject('nope') }).pipe(
        toArray(),
      ),
    );
    expect(events).to.have.length(1);
    expect(events[0].error).to.be.instanceOf(Error);
    expect(events[0].error?.message).to.equal('nope');
  });

  it('never runs the tool when the batch is unsubscribed while onStart is pending', async () => {
    const a = countingTool('a');
    const gate = deferred();
    const subscription = executeBatch([job(a, 'a')], { onStart: () => gate.promise }).subscribe();
    await tick();
    subscription.unsubscribe();
    gate.resolve();
    await tick();
    expect(a.runs).to.equal(0);
  });

  it('cancels a call whose onStart is pending when the signal aborts, and never runs its tool', async () => {
    const a = countingTool('a');
    const gate = deferred();
    const controller = new AbortController();
    const events: ExecutionEvent[] = [];
    let completed = false;
    executeBatch([job(a, 'a')], {
      onStart: () => gate.promise,
      signal: controller.signal,
    }).subscribe({
      next: (event) => events.push(event),
      complete: () => (completed = true),
    });
    await tick();
    controller.abort();
    expect(events).to.deep.equal([
      { index: 0, callId: 'a', final: true, error: new CancelledError() },
    ]);
    expect(completed).to.equal(true);
    gate.resolve();
    await tick();
    expect(a.runs).to.equal(0);
    expect(events).to.have.length(1);
  });

  it('calls onStart once per job, with the job and its index', async () => {
    const jobs = [
      job(countingTool('a'), 'a'),
      job(countingTool('b'), 'b'),
      job(countingTool('c'), 'c'),
    ];
    const seen: [string, number][] = [];
    await lastValueFrom(
      executeBatch(jobs, {
        onStart: async (started, index) => {
          seen.push([started.call.id, index]);
        },
      }).pipe(toArray()),
    );
    expect(seen).to.deep.equal([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });
});
