/**
 * The memory task store (adapters/mcp-server/task-store.ts): what a task server relies on of any
 * store. A task is found once created, an owner's newer view replaces it until it is final, its
 * TTL ends it, and messages reach the listener of the task they are sent to, in order.
 */
import { expect } from 'chai';
import { take, toArray, lastValueFrom } from 'rxjs';
import {
  isTerminal,
  memoryTaskStore,
  type StoredTask,
  type TaskMessage,
} from '../adapters/mcp-server/task-store.js';

function task(taskId: string, at: number, extra: Partial<StoredTask> = {}): StoredTask {
  return {
    taskId,
    tool: 'slow_count',
    status: 'working',
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: 60_000,
    owner: 'a',
    leaseUntil: at + 10_000,
    ...extra,
  };
}

describe('memoryTaskStore', () => {
  it('finds a task once created, and refuses a second with the same id', async () => {
    const store = memoryTaskStore({ now: () => 1_000 });
    await store.create(task('t1', 1_000));
    expect((await store.get('t1'))?.status).to.equal('working');
    expect(await store.get('t2')).to.equal(undefined);
    await store.create(task('t1', 1_000)).then(
      () => expect.fail('created twice'),
      (err: Error) => expect(err.message).to.equal('task store: task "t1" exists'),
    );
  });

  it('takes the owner’s newer views until the task is final, then keeps the final one', async () => {
    const store = memoryTaskStore({ now: () => 1_000 });
    await store.create(task('t1', 1_000));
    expect(
      await store.put(task('t1', 1_000, { status: 'input_required', inputRequests: { q1: {} } })),
    ).to.equal(true);
    expect(
      await store.put(task('t1', 1_000, { status: 'completed', result: { content: [] } })),
    ).to.equal(true);
    // A late write (a cancel racing the end) changes nothing once the task is final.
    expect(await store.put(task('t1', 1_000, { status: 'cancelled' }))).to.equal(false);
    expect((await store.get('t1'))?.status).to.equal('completed');
    await store.put(task('nope', 1_000)).then(
      () => expect.fail('wrote a task never made'),
      (err: Error) => expect(err.message).to.equal('task store: no task "nope"'),
    );
  });

  it('forgets a task past its TTL, and keeps one whose TTL is null', async () => {
    let clock = 1_000;
    const store = memoryTaskStore({ now: () => clock });
    await store.create(task('short', 1_000, { ttlMs: 5_000 }));
    await store.create(task('forever', 1_000, { ttlMs: null }));
    clock = 5_999;
    expect(await store.get('short')).to.not.equal(undefined);
    clock = 6_000;
    expect(await store.get('short')).to.equal(undefined);
    clock = 10 ** 12;
    expect(await store.get('forever')).to.not.equal(undefined);
  });

  it('delivers messages to the listener of their task only, in the order sent', async () => {
    const store = memoryTaskStore();
    const got = lastValueFrom(store.messages('t1').pipe(take(2), toArray()));
    const other: TaskMessage[] = [];
    const otherListener = store.messages('t2').subscribe((m) => other.push(m));
    await store.send('t1', {
      kind: 'answers',
      inputResponses: { q1: { action: 'accept', content: { go: true } } },
    });
    await store.send('t1', { kind: 'cancel' });
    expect(await got).to.deep.equal([
      { kind: 'answers', inputResponses: { q1: { action: 'accept', content: { go: true } } } },
      { kind: 'cancel' },
    ]);
    expect(other).to.deep.equal([]);
    otherListener.unsubscribe();
    // Sent to a task nobody listens for: dropped, never an error.
    await store.send('t3', { kind: 'cancel' });
    await store.close();
  });

  it('says which statuses are final', () => {
    expect(
      ['working', 'input_required', 'completed', 'failed', 'cancelled'].map((s) =>
        isTerminal(s as never),
      ),
    ).to.deep.equal([false, false, true, true, true]);
  });
});
