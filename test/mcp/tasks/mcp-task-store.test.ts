/**
 * The task stores (adapters/mcp-server/tasks/task-store.ts, adapters/redis/redis-task-store.ts): what a
 * task server relies on of any store, run against the memory store and against Redis (Debian's
 * redis-server, started here; skipped with a line where it is missing). A task is found once
 * created, an owner's newer view replaces it until it is final, a lapsed lease lets another
 * instance fail it but a renewed one does not, its TTL ends it, and messages reach the listener
 * of their task in the order sent, those sent before it listened first.
 */
import { expect } from 'chai';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import {
  isTerminal,
  memoryTaskStore,
  type StoredTask,
  type TaskMessage,
  type TaskStore,
} from '../../../adapters/mcp-server/tasks/task-store.js';
import { redisTaskStore } from '../../../adapters/redis/index.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../../support/redis.js';
import { scaled } from '../../support/time.js';

function task(taskId: string, at: number, extra: Partial<StoredTask> = {}): StoredTask {
  return {
    taskId,
    tool: 'slow_count',
    status: 'working',
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: 60_000,
    owner: 'a',
    ...extra,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The cases every store passes; `fresh` gives an empty store, `now` its time and `pass` lets time
 * pass for it (the memory store's own clock; Redis's real one).
 */
function contract(
  fresh: () => TaskStore,
  now: () => number,
  pass: (ms: number) => Promise<void>,
): void {
  it('finds a task once created, and refuses a second with the same id', async () => {
    const store = fresh();
    const id = 't1';
    await store.create(task(id, now()), 10_000);
    const view = await store.get(id);
    expect(view?.task.status).to.equal('working');
    expect(view?.leased).to.equal(true);
    expect(await store.get('never')).to.equal(undefined);
    await store.create(task(id, now()), 10_000).then(
      () => expect.fail('created twice'),
      (err: Error) => expect(err.message).to.equal(`task store: task "${id}" exists`),
    );
  });

  it('takes the owner’s newer views until the task is final, then keeps the final one', async () => {
    const store = fresh();
    const id = 't2';
    const at = now();
    await store.create(task(id, at), 10_000);
    const asking = task(id, at, { status: 'input_required', inputRequests: { q1: { a: [1] } } });
    expect(await store.put(asking)).to.equal(true);
    expect((await store.get(id))?.task).to.deep.equal(asking);
    const done = task(id, at, { status: 'completed', result: { content: [], isError: false } });
    expect(await store.put(done)).to.equal(true);
    // A late write (a cancel racing the end) changes nothing once the task is final.
    expect(await store.put(task(id, at, { status: 'cancelled' }))).to.equal(false);
    expect((await store.get(id))?.task).to.deep.equal(done);
    // A task never made (or gone past its TTL) stays gone.
    expect(await store.put(task('nope', at))).to.equal(false);
    expect(await store.get('nope')).to.equal(undefined);
  });

  it('lets another instance fail a task only once its owner’s lease has lapsed', async () => {
    const store = fresh();
    const id = 't3';
    const at = now();
    await store.create(task(id, at), 150);
    const failed = task(id, at, { status: 'failed', error: { code: -32603, message: 'gone' } });
    // Renewed in time: the owner keeps its task.
    expect(await store.renew(id, 'a', 150)).to.equal(true);
    expect(await store.abandon(failed)).to.equal(false);
    // Someone else cannot renew it.
    expect(await store.renew(id, 'b', 150)).to.equal(false);
    await pass(250);
    expect((await store.get(id))?.leased).to.equal(false);
    // Lapsed: the owner cannot take it back, and another instance fails it, once.
    expect(await store.renew(id, 'a', 150)).to.equal(false);
    expect(await store.abandon(failed)).to.equal(true);
    expect(await store.abandon(failed)).to.equal(false);
    expect((await store.get(id))?.task.status).to.equal('failed');
    expect(await store.put(task(id, at))).to.equal(false);
  });

  it('forgets a task past its TTL, and keeps one whose TTL is null', async () => {
    const store = fresh();
    const short = 'short';
    const forever = 'forever';
    await store.create(task(short, now(), { ttlMs: 200 }), 10_000);
    await store.create(task(forever, now(), { ttlMs: null }), 10_000);
    expect(await store.get(short)).to.not.equal(undefined);
    await pass(300);
    expect(await store.get(short)).to.equal(undefined);
    expect(await store.get(forever)).to.not.equal(undefined);
  });

  it('delivers messages to the listener of their task only: those sent before it first', async () => {
    const store = fresh();
    const [t1, t2] = ['m1', 'm2'];
    await store.create(task(t1, now()), 10_000);
    await store.create(task(t2, now()), 10_000);
    const early: TaskMessage = {
      kind: 'answers',
      inputResponses: { q1: { action: 'accept', content: { go: true } } },
    };
    await store.send(t1, early);
    const got = lastValueFrom(store.messages(t1).pipe(take(3), toArray()));
    const other: TaskMessage[] = [];
    const otherListener = store.messages(t2).subscribe((m) => other.push(m));
    await store.send(t1, { kind: 'answers', inputResponses: { q2: { action: 'decline' } } });
    await store.send(t1, { kind: 'cancel' });
    expect(await got).to.deep.equal([
      early,
      { kind: 'answers', inputResponses: { q2: { action: 'decline' } } },
      { kind: 'cancel' },
    ]);
    // A second listener (an instance that reconnected) reads them all again, in order.
    expect(await firstValueFrom(store.messages(t1))).to.deep.equal(early);
    expect(other).to.deep.equal([]);
    otherListener.unsubscribe();
    const nope = 'nope';
    await store.send(nope, { kind: 'cancel' }).then(
      () => expect.fail('sent to a task never made'),
      (err: Error) => expect(err.message).to.equal(`task store: no task "${nope}"`),
    );
  });
}

describe('task stores', () => {
  it('say which statuses are final', () => {
    expect(
      ['working', 'input_required', 'completed', 'failed', 'cancelled'].map((s) =>
        isTerminal(s as never),
      ),
    ).to.deep.equal([false, false, true, true, true]);
  });

  describe('memoryTaskStore', () => {
    let clock = 1_000;
    contract(
      () => memoryTaskStore({ now: () => clock }),
      () => clock,
      (ms) => {
        clock += ms;
        return Promise.resolve();
      },
    );

    it('reads its TTL off the clock it is given', async () => {
      let clock = 1_000;
      const store = memoryTaskStore({ now: () => clock });
      await store.create(task('t', 1_000, { ttlMs: 5_000 }), 100_000);
      clock = 5_999;
      expect(await store.get('t')).to.not.equal(undefined);
      clock = 6_000;
      expect(await store.get('t')).to.equal(undefined);
    });
  });

  describe('redisTaskStore', function () {
    this.timeout(scaled(20_000));
    let redis: TestRedis;
    const stores: TaskStore[] = [];
    let run = 0;
    before(async function () {
      skipWithoutRedis(this, 'the Redis task store tests');
      redis = await startRedis();
    });
    after(async () => {
      await Promise.all(stores.map((store) => store.close()));
      await redis?.stop();
    });
    const fresh = (): TaskStore => {
      const store = redisTaskStore(redis.url, { prefix: `test:${++run}:` });
      stores.push(store);
      return store;
    };

    contract(fresh, () => Date.now(), sleep);

    it('shares tasks and messages between two stores on one Redis, and none across prefixes', async () => {
      const a = redisTaskStore(redis.url, { prefix: 'shared:' });
      const b = redisTaskStore(redis.url, { prefix: 'shared:' });
      const c = redisTaskStore(redis.url, { prefix: 'other:' });
      stores.push(a, b, c);
      await a.create(task('s1', Date.now()), 10_000);
      expect((await b.get('s1'))?.task.taskId).to.equal('s1');
      expect(await c.get('s1')).to.equal(undefined);
      const heard = firstValueFrom(a.messages('s1'));
      await b.send('s1', { kind: 'cancel' });
      expect(await heard).to.deep.equal({ kind: 'cancel' });
    });

    it('refuses a URL that is not Redis’s, and fails with a clear error when Redis dies', async () => {
      expect(() => redisTaskStore('http://127.0.0.1:1')).to.throw(
        TypeError,
        'redisTaskStore: expected a redis:// or rediss:// URL, got "http://127.0.0.1:1"',
      );
      const own = await startRedis();
      const said: string[] = [];
      const store = redisTaskStore(own.url, { onError: (e) => said.push(e.message) });
      await store.create(task('d1', Date.now()), 10_000);
      await own.kill();
      const err = await store.get('d1').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.match(
        new RegExp(`^task store: Redis at redis://127\\.0\\.0\\.1:${own.port}: reading task d1: `),
      );
      expect(said.some((line) => line.startsWith(`task store: Redis at ${own.url}`))).to.equal(
        true,
      );
      await store.close();
    });
  });
});
