import { expect } from 'chai';
import { EventEmitter, getEventListeners } from 'node:events';
import { fromEvent, map, Observable, timer, type Subscription } from 'rxjs';
import { z } from 'zod';
import { bash, ProcessGroup } from '../../cli/tools/index.js';
import { rawTool, textResult, tool, type ToolRecord, type Tool } from '../../index.js';
import { executeBatch, type ExecutionEvent, type Job } from '../../operators/index.js';
import { scaled } from '../support/time.js';

/**
 * The active resources keeping the event loop alive, counted by type. Read it after the test's
 * first await: mocha starts the test's own timer once the test function has returned its Promise.
 */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo())
    counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function growth(before: Map<string, number>): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [type, count] of resources()) {
    const more = count - (before.get(type) ?? 0);
    if (more > 0) grown[type] = more;
  }
  return grown;
}

/**
 * Polls `check` every 20 ms until it holds or `ms` (scaled by TEST_TIME_SCALE) have passed;
 * resolves to whether it held.
 */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + scaled(ms);
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

function alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).to.equal('ESRCH');
    return false;
  }
}

/** Resolves after `ms`, rejecting as soon as the signal aborts; the timer is cleared then. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timeout);
      reject(signal.reason);
    };
    const timeout = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

describe('reliability: unsubscribing from a batch with every call running', function () {
  this.timeout(scaled(10_000));

  it('leaves no timers, listeners or child processes behind after 10k running calls', async () => {
    const bus = new EventEmitter();
    bus.setMaxListeners(0);
    let started = 0;
    const kinds: Tool[] = [
      tool({
        name: 'sleeps',
        description: 'An async function waiting on a timer it clears when cancelled.',
        parameters: z.object({ ms: z.number() }),
        async execute({ ms }, context) {
          started++;
          await pause(ms, context.signal);
          return 'woke';
        },
      }),
      tool({
        name: 'ticks',
        description: 'An Observable of an interval.',
        execute: () => {
          started++;
          return timer(0, 60_000).pipe(map(String));
        },
      }),
      rawTool({
        name: 'listens',
        description: 'Waits for an event on a shared emitter.',
        execute: () => {
          started++;
          return fromEvent(bus, 'go').pipe(
            map(() => ({ final: true, result: textResult('went') })),
          );
        },
      }),
      tool({
        name: 'generates',
        description: 'An async generator pausing between steps.',
        async *execute(_args, context) {
          started++;
          for (;;) {
            yield 'step';
            await pause(60_000, context.signal);
          }
        },
      }),
      rawTool({
        name: 'waits',
        description: 'An Observable holding a timer in its own teardown.',
        execute: () =>
          new Observable(() => {
            started++;
            const handle = setTimeout(() => undefined, 60_000);
            return () => clearTimeout(handle);
          }),
      }),
    ];
    // bash names the shell:session resource, so its calls would chain; this one runs them alongside.
    const freeBash: Tool = {
      name: 'bash',
      description: bash.description,
      parameters: bash.parameters,
      execute: (call, context) => bash.execute(call, context),
    };
    const jobs: Job[] = [];
    for (let i = 0; i < 9_980; i++)
      jobs.push({ tool: kinds[i % kinds.length]!, call: { id: `c${i}`, args: '{"ms":60000}' } });
    for (let i = 0; i < 20; i++)
      jobs.splice(i * 500, 0, {
        tool: freeBash,
        call: { id: `b${i}`, args: '{"command":"sleep 30"}' },
      });
    expect(jobs).to.have.length(10_000);

    const pgids: number[] = [];
    const recorder = async (record: ToolRecord): Promise<void> => {
      pgids.push((JSON.parse(record.data) as ProcessGroup).pgid);
    };
    const outer = new AbortController();
    await new Promise(setImmediate);
    const before = resources();
    const events: ExecutionEvent[] = [];
    const subscription: Subscription = executeBatch(jobs, {
      maxParallel: 10_000,
      timeout: 60_000,
      recorder,
      signal: outer.signal,
    }).subscribe({ next: (e) => events.push(e) });

    expect(await eventually(() => started === 9_980 && pgids.length === 20, 5_000)).to.equal(true);
    expect(pgids.every(alive)).to.equal(true);
    expect(bus.listenerCount('go')).to.equal(9_980 / 5);
    expect(getEventListeners(outer.signal, 'abort')).to.have.length(1);
    expect(growth(before).Timeout).to.be.above(10_000); // a timeout per call, and the tools' own
    expect(events.filter((e) => e.final)).to.deep.equal([]);

    subscription.unsubscribe();

    expect(bus.listenerCount('go')).to.equal(0);
    expect(getEventListeners(outer.signal, 'abort')).to.have.length(0);
    expect(await eventually(() => !pgids.some(alive), 2_000), 'process groups gone').to.equal(true);
    await eventually(() => Object.keys(growth(before)).length === 0, 2_000);
    expect(growth(before), 'resources left').to.deep.equal({});
    expect(events.filter((e) => e.final)).to.deep.equal([]);
  });

  it('kills the process group of a bash call that is cancelled mid-command', async () => {
    const pgids: number[] = [];
    const events: ExecutionEvent[] = [];
    await new Promise(setImmediate);
    const before = resources();
    const subscription = executeBatch(
      [{ tool: bash, call: { id: 'b', args: '{"command":"sleep 30 & sleep 30; wait"}' } }],
      { recorder: async (record) => void pgids.push(JSON.parse(record.data).pgid) },
    ).subscribe({ next: (e) => events.push(e) });
    expect(await eventually(() => pgids.length === 1, 2_000)).to.equal(true);
    subscription.unsubscribe();
    expect(await eventually(() => !alive(pgids[0]!), 2_000)).to.equal(true);
    await eventually(() => Object.keys(growth(before)).length === 0, 2_000);
    expect(growth(before), 'resources left').to.deep.equal({});
    expect(events).to.deep.equal([]);
  });
});
