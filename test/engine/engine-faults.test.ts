import { expect } from 'chai';
import { lastValueFrom, of, timer, map, toArray, from } from 'rxjs';
import type { Tool } from '../../lib/contract.js';
import { NoToolError, TimeoutError } from '../../lib/errors.js';
import {
  batchResults,
  chains,
  executeBatch,
  executeCalls,
  type ExecuteOptions,
  type ExecutionEvent,
  type Job,
} from '../../operators/index.js';
import { final, stubTool } from '../../testing/index.js';

const job = (tool: Tool, id: string, args = ''): Job => ({ tool, call: { id, args } });
const ok = (name: string, properties = {}) => stubTool(name, of(final(`${name} done`)), properties);
/** A job whose tool is undefined, as a `lookup()` that missed gives. */
const noTool = (id: string): Job => ({
  tool: undefined as unknown as Tool,
  call: { id, args: '' },
});

function run(jobs: Job[], options: ExecuteOptions = {}): Promise<ExecutionEvent[]> {
  return lastValueFrom(executeBatch(jobs, options).pipe(toArray()));
}

describe('executeBatch: a job whose tool is undefined', () => {
  for (const [label, options] of [
    ['a parallel batch', {}],
    ['a serial batch', { sequential: true }],
    ['a batch of one slot', { maxParallel: 1 }],
  ] as const) {
    it(`ends as that job's NoToolError final in ${label}, the others run`, async () => {
      const events = await run(
        [job(ok('a', { resource: 'fs' }), 'a'), noTool('x'), job(ok('b'), 'b')],
        options,
      );
      expect(events).to.deep.equal([
        { index: 0, callId: 'a', final: true, result: { output: 'a done' } },
        { index: 1, callId: 'x', final: true, error: new NoToolError('x') },
        { index: 2, callId: 'b', final: true, result: { output: 'b done' } },
      ]);
      expect(events[1].error?.message).to.equal('no tool for call "x"');
    });
  }

  it('does the same beside a sequential tool, and in executeCalls', async () => {
    const jobs = [job(ok('s', { sequential: true }), 's'), noTool('x')];
    expect((await run(jobs)).map((e) => e.error?.message ?? e.result?.output)).to.deep.equal([
      's done',
      'no tool for call "x"',
    ]);
    const arrived = await lastValueFrom(from(jobs).pipe(executeCalls(), toArray()));
    expect(arrived.map((e) => e.error?.message ?? e.result?.output)).to.deep.equal([
      's done',
      'no tool for call "x"',
    ]);
  });

  it('is settled by batchResults and given a chain of its own by chains', async () => {
    const jobs = [
      job(ok('a', { resource: 'fs' }), 'a'),
      noTool('x'),
      job(ok('b', { resource: 'fs' }), 'b'),
    ];
    const settled = await batchResults(jobs);
    expect(settled[1]).to.deep.equal({ error: new NoToolError('x') });
    expect(chains(jobs)).to.deep.equal([[0, 2], [1]]);
  });
});

describe('executeBatch: a timeout no timer can hold', () => {
  /** A tool whose call ends after `ms` of real time. */
  const slow = (ms: number) => stubTool('slow', timer(ms).pipe(map(() => final('late'))));

  for (const timeout of [Infinity, 2 ** 31, 2 ** 40, Number.MAX_VALUE]) {
    it(`does not time a call out at once under timeout ${timeout}`, async () => {
      const events = await run([job(slow(30), 'a')], { timeout });
      expect(events).to.deep.equal([
        { index: 0, callId: 'a', final: true, result: { output: 'late' } },
      ]);
    });
  }

  it('still times out under an ordinary timeout', async () => {
    const events = await run([job(slow(1000), 'a')], { timeout: 20 });
    expect(events[0].error).to.deep.equal(new TimeoutError(20));
  });
});

describe('executeBatch: an onStart whose result cannot be read', () => {
  it('fails only that job when reading `then` throws', async () => {
    const events = await run([job(ok('a'), 'a'), job(ok('b'), 'b')], {
      onStart: (_job, index) => {
        if (index !== 0) return;
        return {
          get then(): never {
            throw new Error('then getter boom');
          },
        } as unknown as Promise<void>;
      },
    });
    expect(events).to.deep.equal([
      { index: 0, callId: 'a', final: true, error: new Error('then getter boom') },
      { index: 1, callId: 'b', final: true, result: { output: 'b done' } },
    ]);
  });

  it('fails only that job when its `then` throws', async () => {
    let runs = 0;
    const counted = stubTool('a', () => {
      runs++;
      return of(final('a done'));
    });
    const events = await run([job(counted, 'a'), job(ok('b'), 'b')], {
      onStart: (_job, index) => {
        if (index !== 0) return;
        return {
          then() {
            throw new Error('then boom');
          },
        } as unknown as Promise<void>;
      },
    });
    expect(
      events.map((e) => [e.callId, e.error?.message ?? e.result?.output]),
    ).to.have.deep.members([
      ['a', 'then boom'],
      ['b', 'b done'],
    ]);
    expect(runs).to.equal(0);
  });

  it('takes a result of null or a number as a synchronous start', async () => {
    const events = await run([job(ok('a'), 'a'), job(ok('b'), 'b')], {
      onStart: (_job, index) => (index === 0 ? null : 5) as unknown as void,
    });
    expect(events.map((e) => e.result?.output)).to.deep.equal(['a done', 'b done']);
  });
});

describe('executeBatch: a hand-written tool whose execute returns a Promise', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => process.off('unhandledRejection', onUnhandled));
  beforeEach(() => (unhandled.length = 0));
  /** Lets Node report what was left unhandled: it does so once the microtasks have run. */
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));
  /** A tool made by hand (not by tool() or rawTool()) with this `execute`. */
  const byHand = (name: string, execute: () => unknown): Tool =>
    ({ name, description: '', execute }) as unknown as Tool;

  it('makes an async execute that rejects its call failure; nothing reaches unhandledRejection', async () => {
    const jobs = [
      job(
        byHand('async_rejects', async () => {
          await Promise.resolve();
          throw new Error('no disk');
        }),
        'a',
      ),
      job(
        byHand('rejects_number', () => Promise.reject(42)),
        'n',
      ),
      job(ok('b'), 'b'),
    ];
    const events = await run(jobs);
    await settle();
    expect(unhandled).to.deep.equal([]);
    expect(
      events.map((e) => [e.callId, e.error?.message ?? e.result?.output]),
    ).to.have.deep.members([
      ['a', 'no disk'],
      ['n', 'tool "rejects_number" panicked: 42'],
      ['b', 'b done'],
    ]);
  });

  it('adopts an async execute that resolves to an Observable: its final is the result', async () => {
    const events = await run([
      job(
        byHand('async_observable', async () => of(final('late'))),
        'a',
      ),
    ]);
    expect(events).to.deep.equal([
      { index: 0, callId: 'a', final: true, result: { output: 'late' } },
    ]);
  });

  it('adopts any thenable, and fails one that resolves to no observable with a one-line panic', async () => {
    const thenable = {
      then(_resolve: unknown, reject: (reason: unknown) => void) {
        reject(new RangeError('thenable refused'));
      },
    };
    const events = await run([
      job(
        byHand('thenable', () => thenable),
        't',
      ),
      job(
        byHand('resolves_text', async () => 'text'),
        'x',
      ),
    ]);
    await settle();
    expect(unhandled).to.deep.equal([]);
    expect(events.map((e) => [e.callId, e.error?.message])).to.have.deep.members([
      ['t', 'thenable refused'],
      [
        'x',
        'tool "resolves_text" panicked: execute\'s Promise resolved to text, not an Observable',
      ],
    ]);
  });

  it('times out a Promise still pending and ignores its later rejection', async () => {
    let reject!: (reason: unknown) => void;
    const pending = byHand('pending', () => new Promise((_resolve, no) => (reject = no)));
    const events = await run([job(pending, 'p')], { timeout: 5 });
    expect(events).to.deep.equal([
      { index: 0, callId: 'p', final: true, error: new TimeoutError(5) },
    ]);
    reject(new Error('too late'));
    await settle();
    expect(unhandled).to.deep.equal([]);
  });

  it('does the same in executeCalls', async () => {
    const jobs = [
      job(
        byHand('async_rejects', () => Promise.reject(new Error('no disk'))),
        'a',
      ),
    ];
    const events = await lastValueFrom(from(jobs).pipe(executeCalls(), toArray()));
    await settle();
    expect(unhandled).to.deep.equal([]);
    expect(events.map((e) => e.error?.message)).to.deep.equal(['no disk']);
  });
});
