import { expect } from 'chai';
import { from, lastValueFrom, Observable, reduce } from 'rxjs';
import type { Tool, ToolEvent } from '../../lib/contract.js';
import {
  batchResults,
  executeBatch,
  executeCalls,
  type ExecutionEvent,
  type Job,
} from '../../operators/index.js';
import { final } from '../../testing/index.js';
import { scaled } from '../support/time.js';

const N = 100_000;
const done = final('ok');

/** A tool whose calls end inside subscribe: the case that would recurse without a trampoline. */
const syncTool = (resource?: string): Tool => ({
  name: 'sync',
  description: '',
  resource,
  execute: () =>
    new Observable<ToolEvent>((subscriber) => {
      subscriber.next(done);
      subscriber.complete();
    }),
});

/** A tool whose calls end a microtask later. */
const asyncTool = (resource?: string): Tool => ({
  name: 'async',
  description: '',
  resource,
  execute: () => from(Promise.resolve(done)),
});

const batch = (tools: Tool[]): Job[] =>
  Array.from({ length: N }, (_, i) => ({
    tool: tools[i % tools.length],
    call: { id: `c${i}`, args: '' },
  }));

interface Tally {
  finals: number;
  inOrder: boolean;
}

/** Counts final events, failing on a second final for a job, and notes whether they came in job order. */
function tally(events: Observable<ExecutionEvent>): Promise<Tally> {
  const seen = new Uint8Array(N);
  return lastValueFrom(
    events.pipe(
      reduce(
        (acc: Tally, event) => {
          if (!event.final) return acc;
          if (seen[event.index]++ !== 0) throw new Error(`second final for ${event.index}`);
          return { finals: acc.finals + 1, inOrder: acc.inOrder && event.index === acc.finals };
        },
        { finals: 0, inOrder: true } as Tally,
      ),
    ),
  );
}

describe('executeBatch: 100k calls', function () {
  this.timeout(scaled(60_000));

  it('completes 100k synchronous calls without growing the stack, in job order', async () => {
    expect(await tally(executeBatch(batch([syncTool()])))).to.deep.equal({
      finals: N,
      inOrder: true,
    });
  });

  it('completes 100k asynchronous calls under the default bound', async () => {
    const { finals } = await tally(executeBatch(batch([asyncTool()])));
    expect(finals).to.equal(N);
  });

  it('completes 100k calls of one resource, one after another in job order', async () => {
    expect(await tally(executeBatch(batch([asyncTool('fs')])))).to.deep.equal({
      finals: N,
      inOrder: true,
    });
  });

  it('completes 100k calls spread over ten resources and free jobs', async () => {
    const tools = [
      ...Array.from({ length: 10 }, (_, i) => asyncTool(`r${i}`)),
      asyncTool(),
      syncTool(),
    ];
    const { finals } = await tally(executeBatch(batch(tools), { maxParallel: 16 }));
    expect(finals).to.equal(N);
  });

  it('completes a serial batch of 100k synchronous calls', async () => {
    expect(await tally(executeBatch(batch([syncTool()]), { sequential: true }))).to.deep.equal({
      finals: N,
      inOrder: true,
    });
  });

  it('runs 100k jobs arriving through executeCalls', async () => {
    const { finals } = await tally(from(batch([syncTool(), asyncTool('fs')])).pipe(executeCalls()));
    expect(finals).to.equal(N);
  });

  it('settles 100k calls through batchResults', async () => {
    const settled = await batchResults(batch([syncTool(), asyncTool()]));
    expect(settled).to.have.length(N);
    expect(settled.every((entry) => 'result' in entry)).to.equal(true);
  });

  it('cancels 100k waiting calls when the signal aborts', async () => {
    const controller = new AbortController();
    const hang: Tool = {
      name: 'hang',
      description: '',
      execute: () => new Observable<ToolEvent>(),
    };
    const events = executeBatch(batch([hang]), { signal: controller.signal });
    const counted = tally(events);
    controller.abort();
    expect((await counted).finals).to.equal(N);
  });
});
