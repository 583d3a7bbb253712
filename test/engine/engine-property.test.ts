import { expect } from 'chai';
import fc from 'fast-check';
import { ignoreElements, map, merge, timer } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import { CancelledError, TimeoutError, ToolPanicError } from '../../lib/errors.js';
import {
  executeBatch,
  executeCalls,
  type ExecuteOptions,
  type ExecutionEvent,
  type Job,
} from '../../operators/index.js';
import { final, progress, stubTool } from '../../testing/index.js';

// Random batches run in virtual time. Each job's tool is a cold observable whose subscription log
// says when the engine started and stopped it; an oracle computes the one final each job must get.

type Outcome = 'ok' | 'error' | 'no-final' | 'final-then-hang';

interface JobSpec {
  resource: string;
  sequential: boolean;
  duration: number;
  outcome: Outcome;
  progress: boolean;
  gap: number; // executeCalls: frames between the previous arrival and this one
}

interface Case {
  jobs: JobSpec[];
  maxParallel: number | undefined;
  sequential: boolean;
  timeout: number | undefined;
  unsubscribeAt: number | undefined;
  abortAt: number | undefined;
}

const jobSpec: fc.Arbitrary<JobSpec> = fc.record({
  resource: fc.constantFrom('', '', 'r1', 'r2', 'r3'),
  sequential: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  duration: fc.integer({ min: 1, max: 6 }),
  outcome: fc.constantFrom<Outcome>('ok', 'ok', 'ok', 'error', 'no-final', 'final-then-hang'),
  progress: fc.boolean(),
  gap: fc.integer({ min: 0, max: 3 }),
});

const batchCase: fc.Arbitrary<Case> = fc.record({
  jobs: fc.array(jobSpec, { maxLength: 10 }),
  maxParallel: fc.option(fc.integer({ min: -1, max: 4 }), { nil: undefined }),
  sequential: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  timeout: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  unsubscribeAt: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  abortAt: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
});

const toolValues = {
  p: progress('half'),
  f: final('done'),
  q: progress('late'),
  g: final('again'),
};
const failure = new Error('fail');

/** The marble of a job's tool: events after a final ('q', 'g') must never surface. */
function marbleOf(spec: JobSpec): string {
  const lead = spec.progress ? 'p' + '-'.repeat(spec.duration - 1) : '-'.repeat(spec.duration);
  const tail = { ok: 'f-q-g|', error: '#', 'no-final': '|', 'final-then-hang': 'f-q' }[
    spec.outcome
  ];
  return lead + tail;
}

interface Interval {
  start: number;
  end: number;
}

interface Run {
  events: { frame: number; event: ExecutionEvent }[];
  completedAt: number | undefined;
  intervals: (Interval | undefined)[];
}

/** Runs one case in a fresh TestScheduler; `calls` switches from executeBatch to executeCalls. */
function run(c: Case, calls: boolean): Run {
  const scheduler = new TestScheduler((a, e) => {
    expect(a).to.deep.equal(e);
  });
  const out: Run = { events: [], completedAt: undefined, intervals: [] };
  const stubs: ReturnType<RunHelpers['cold']>[] = [];
  scheduler.run(({ cold }) => {
    const jobs: Job[] = c.jobs.map((spec, i) => {
      const stub = cold(marbleOf(spec), toolValues, failure);
      stubs.push(stub);
      const props = { resource: spec.resource, sequential: spec.sequential };
      return { tool: stubTool(`t${i}`, stub, props), call: { id: `c${i}`, args: '' } };
    });
    const controller = new AbortController();
    const options: ExecuteOptions = {
      maxParallel: c.maxParallel,
      sequential: c.sequential,
      timeout: c.timeout,
      signal: controller.signal,
    };
    let arrival = 0;
    const source = merge(
      ...jobs.map((job, i) => timer((arrival += c.jobs[i].gap)).pipe(map(() => job))),
      timer(arrival + 1).pipe(ignoreElements()),
    );
    const events = calls ? source.pipe(executeCalls(options)) : executeBatch(jobs, options);
    // Scheduled before the batch subscribes, so each runs before any tool event of its frame.
    if (c.unsubscribeAt !== undefined) scheduler.schedule(() => sub.unsubscribe(), c.unsubscribeAt);
    if (c.abortAt !== undefined) scheduler.schedule(() => controller.abort(), c.abortAt);
    const sub = events.subscribe({
      next: (event) => out.events.push({ frame: scheduler.now(), event }),
      complete: () => (out.completedAt = scheduler.now()),
    });
  });
  out.intervals = stubs.map((stub) => {
    expect(stub.subscriptions.length, 'a tool runs at most once').to.be.at.most(1);
    const log = stub.subscriptions[0];
    return log === undefined
      ? undefined
      : { start: log.subscribedFrame, end: log.unsubscribedFrame };
  });
  return out;
}

function arrivals(c: Case): number[] {
  let at = 0;
  return c.jobs.map((spec) => (at += spec.gap));
}

function bound(c: Case, serial: boolean): number {
  if (serial) return 1;
  return c.maxParallel !== undefined && c.maxParallel >= 1 ? c.maxParallel : 8;
}

/** What ended the run early, if anything: the unsubscription wins a tie (it was scheduled first). */
function cutoff(c: Case): { at: number; by: 'unsubscribe' | 'abort' } | undefined {
  const u = c.unsubscribeAt;
  const a = c.abortAt;
  if (u !== undefined && (a === undefined || u <= a)) return { at: u, by: 'unsubscribe' };
  if (a !== undefined) return { at: a, by: 'abort' };
  return undefined;
}

/** The final a job must get when its tool ran from `start` undisturbed. */
function expectedFinal(spec: JobSpec, start: number, timeout: number | undefined) {
  if (timeout !== undefined && timeout < spec.duration) {
    return { frame: start + timeout, error: new TimeoutError(timeout) };
  }
  const frame = start + spec.duration;
  if (spec.outcome === 'error') return { frame, error: failure };
  if (spec.outcome === 'no-final') {
    return { frame, error: new ToolPanicError('t', undefined, 'completed without a final event') };
  }
  return { frame, result: { output: 'done' } };
}

function checkCommon(c: Case, r: Run, serial: boolean): void {
  const stop = cutoff(c);
  const finals = new Map<number, { frame: number; event: ExecutionEvent }>();
  for (const { frame, event } of r.events) {
    expect(finals.has(event.index), `nothing of job ${event.index} after its final`).to.equal(
      false,
    );
    if (event.final) finals.set(event.index, { frame, event });
    else expect(event.result).to.deep.equal({ output: 'half' });
    if (stop?.by === 'unsubscribe') expect(frame).to.be.at.most(stop.at);
  }

  // One final per job, unless the consumer unsubscribed first.
  const ended = stop?.by !== 'unsubscribe' || r.completedAt !== undefined;
  if (ended) {
    expect(r.completedAt, 'the batch completes').to.not.equal(undefined);
    expect([...finals.keys()].sort((a, b) => a - b)).to.deep.equal(c.jobs.map((_, i) => i));
  }

  // The final of every job is the one its tool, the timeout or the abort decides.
  for (const [index, { frame, event }] of finals) {
    const interval = r.intervals[index];
    const spec = c.jobs[index];
    const due = interval === undefined ? undefined : expectedFinal(spec, interval.start, c.timeout);
    if (due !== undefined && (stop === undefined || due.frame < stop.at)) {
      expect(frame).to.equal(due.frame);
      if (due.error instanceof ToolPanicError) {
        expect(event.error).to.be.instanceOf(ToolPanicError);
      } else if (due.error !== undefined) expect(event.error).to.deep.equal(due.error);
      else expect(event.result).to.deep.equal(due.result);
    } else {
      expect(stop?.by).to.equal('abort');
      expect(frame).to.equal(stop?.at);
      expect(event.error).to.deep.equal(new CancelledError());
    }
  }

  // The jobs an abort cancels get their finals in job order.
  const cancelled = r.events.filter(({ event }) => event.error instanceof CancelledError);
  const order = cancelled.map(({ event }) => event.index);
  expect(order, 'cancelled in job order').to.deep.equal([...order].sort((a, b) => a - b));

  // Never more than the bound running: count half-open intervals at every frame.
  const limit = bound(c, serial);
  const spans = r.intervals.filter((x): x is Interval => x !== undefined);
  for (const { start } of spans) {
    const running = spans.filter((x) => x.start <= start && start < x.end).length;
    expect(running, `running at frame ${start}`).to.be.at.most(limit);
  }

  // Nothing runs, or starts, past the unsubscription or the abort.
  if (stop !== undefined) {
    for (const x of spans) {
      expect(x.start).to.be.at.most(stop.at);
      expect(x.end).to.be.at.most(stop.at);
    }
  }

  // A call that ended by itself was stopped at its final, not left running.
  for (const x of spans) expect(x.end).to.not.equal(Infinity);

  // Serial: one at a time, in job order. Otherwise, each resource's calls in order, apart.
  const inOrder = (indices: number[]) => {
    const started = indices.filter((i) => r.intervals[i] !== undefined);
    expect(started, 'calls start in job order').to.deep.equal(indices.slice(0, started.length));
    for (let k = 1; k < started.length; k++) {
      const before = r.intervals[started[k - 1]] as Interval;
      const after = r.intervals[started[k]] as Interval;
      expect(before.end, `job ${started[k]} waits for job ${started[k - 1]}`).to.be.at.most(
        after.start,
      );
    }
  };
  if (serial) inOrder(c.jobs.map((_, i) => i));
  else {
    const chains = new Map<string, number[]>();
    c.jobs.forEach((spec, i) => {
      if (spec.resource === '' || spec.sequential) return;
      chains.set(spec.resource, [...(chains.get(spec.resource) ?? []), i]);
    });
    for (const indices of chains.values()) inOrder(indices);
  }
}

describe('engine properties over random batches (virtual time)', () => {
  it('executeBatch: one final per job, the bound, resources, serial order, cancellation', () => {
    fc.assert(
      fc.property(batchCase, (c) => {
        const serial =
          c.sequential || bound(c, false) === 1 || c.jobs.some((spec) => spec.sequential);
        const r = run(c, false);
        checkCommon(c, r, serial);
      }),
      { numRuns: 400 },
    );
  });

  it('executeCalls: the same, plus arrival order and sequential barriers', () => {
    fc.assert(
      fc.property(batchCase, (c) => {
        const serial = c.sequential || bound(c, false) === 1;
        const r = run(c, true);
        const at = arrivals(c);
        const stop = cutoff(c);
        // Jobs that arrive after the abort or the unsubscription are never read: judge the rest.
        const read = stop === undefined ? c.jobs.length : at.filter((t) => t < stop.at).length;
        const judged: Case = { ...c, jobs: c.jobs.slice(0, read) };
        checkCommon(judged, { ...r, intervals: r.intervals.slice(0, read) }, serial);
        r.intervals.forEach((x, i) => {
          if (x !== undefined)
            expect(x.start, `job ${i} starts after it arrives`).to.be.at.least(at[i]);
        });
        if (serial) return;
        c.jobs.forEach((spec, k) => {
          const barrier = r.intervals[k];
          if (!spec.sequential || barrier === undefined) return;
          r.intervals.forEach((x, i) => {
            if (x === undefined || i === k) return;
            if (i < k)
              expect(x.end, `job ${i} ends before barrier ${k}`).to.be.at.most(barrier.start);
            else expect(x.start, `job ${i} waits for barrier ${k}`).to.be.at.least(barrier.end);
          });
        });
      }),
      { numRuns: 400 },
    );
  });
});
