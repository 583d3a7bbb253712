/**
 * When `connectMcp` polls a task (adapters/mcp-client/remote-task.ts, docs/mcp.md): at once, then
 * after 2, 4, 8… ms, the waits doubling up to the server's `pollIntervalMs`; a poll that failed on
 * the way is tried again after the whole interval. Pinned in virtual time: the task's timers are a
 * clock the test moves.
 */
import { expect } from 'chai';
import {
  pollDelay,
  RemoteTask,
  type PollTimers,
} from '../../../adapters/mcp-client/remote-task.js';

/** A clock that moves only when told to. */
class VirtualClock implements PollTimers {
  now = 0;
  private queue: { at: number; run: () => void; id: number }[] = [];
  private ids = 0;
  setTimeout(run: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.queue.push({ at: this.now + ms, run, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((t) => t.id !== handle);
  }
  /** Runs every timer due up to `until`, letting the promises each one starts settle. */
  async advance(until: number): Promise<void> {
    for (;;) {
      await settle();
      this.queue.sort((a, b) => a.at - b.at);
      const next = this.queue[0];
      if (next === undefined || next.at > until) break;
      this.queue.shift();
      this.now = next.at;
      next.run();
    }
    this.now = until;
    await settle();
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const task = (status: string, pollIntervalMs?: number) => ({
  taskId: 't1',
  status,
  createdAt: '2026-07-28T00:00:00Z',
  lastUpdatedAt: '2026-07-28T00:00:00Z',
  ttlMs: 60_000,
  ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  ...(status === 'completed' ? { result: { content: [] } } : {}),
});

/** A task polled on `clock`, its server answering `answer(n)` to poll n; the virtual times of polls. */
function polled(clock: VirtualClock, answer: (n: number) => Promise<unknown>) {
  const at: number[] = [];
  const ended: string[] = [];
  const remote = new RemoteTask(
    (method) => {
      if (method !== 'tasks/get') return Promise.resolve({});
      at.push(clock.now);
      return answer(at.length - 1);
    },
    'v2',
    't1',
    {
      progress: () => undefined,
      elicit: () => undefined,
      completed: () => ended.push('completed'),
      failed: (error) => ended.push(error.message),
    },
    clock,
  );
  return { remote, at, ended };
}

describe('the poll schedule of a remote task', () => {
  it('waits 0, then 2, 4, 8… ms, never past the suggested interval', () => {
    const waits = Array.from({ length: 12 }, (_, n) => pollDelay(n, 1_000));
    expect(waits).to.deep.equal([0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_000, 1_000]);
    expect(pollDelay(3, undefined), 'no suggestion: 1 s').to.equal(8);
    expect(pollDelay(20, undefined)).to.equal(1_000);
    expect(pollDelay(20, 50)).to.equal(50);
    expect(pollDelay(20, 1), 'a suggestion below 10 ms is held at 10').to.equal(10);
    expect(pollDelay(40, 10 ** 9), 'one above 30 s at 30 s').to.equal(30_000);
  });

  it('polls a task made working at once, then backs off to the server’s interval', async () => {
    const clock = new VirtualClock();
    const { remote, at, ended } = polled(clock, () => Promise.resolve(task('working', 100)));
    remote.start(task('working', 100) as never);
    await clock.advance(1_000);
    remote.stop();
    // 0, +2, +4, +8, +16, +32, +64, then every 100 ms.
    expect(at.slice(0, 10)).to.deep.equal([0, 2, 6, 14, 30, 62, 126, 226, 326, 426]);
    expect(ended).to.deep.equal([]);
  });

  it('sees a task that ends in 5 ms ended by its fourth poll', async () => {
    const clock = new VirtualClock();
    const { remote, at, ended } = polled(clock, () =>
      Promise.resolve(task(clock.now >= 5 ? 'completed' : 'working')),
    );
    remote.start(task('working') as never);
    await clock.advance(100);
    expect(at).to.deep.equal([0, 2, 6]);
    expect(ended).to.deep.equal(['completed']);
  });

  it('polls a task it was given only the id of at once', async () => {
    const clock = new VirtualClock();
    const { remote, at, ended } = polled(clock, (n) =>
      Promise.resolve(task(n < 2 ? 'working' : 'completed')),
    );
    remote.start();
    await clock.advance(100);
    expect(at).to.deep.equal([0, 2, 6]);
    expect(ended).to.deep.equal(['completed']);
  });

  it('tries a poll that failed on the way again after the whole interval', async () => {
    const clock = new VirtualClock();
    const { remote, at, ended } = polled(clock, (n) =>
      n === 1 ? Promise.reject(new Error('socket hang up')) : Promise.resolve(task('working', 200)),
    );
    remote.start(task('working', 200) as never);
    await clock.advance(220);
    remote.stop();
    // 0, 2 (fails), 202 (200 ms on), then the schedule goes on: +4 after that.
    expect(at.slice(0, 4)).to.deep.equal([0, 2, 202, 206]);
    expect(ended).to.deep.equal([]);
  });
});
