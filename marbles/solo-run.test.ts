/**
 * A batch of one call runs without the engine's turn-taking (operators/internal/solo-run.ts):
 * the same events and tool subscriptions, frame for frame, as the engine and as the pipeline
 * model, on random one-job batches of every kind the differential test makes.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Observable, of, take } from 'rxjs';
import { z } from 'zod';
import { tool } from '../lib/tool.js';
import { caseArbitrary, trace, type Case } from './differential.js';
import { executeBatch, registerSoloRun } from '../operators/execute-batch.js';
import { runsAlone, SoloRun } from '../operators/internal/solo-run.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../operators/job.js';
import type { Tool } from '../lib/contract.js';
import { scaled } from '../test/support/time.js';

/** The solo runner, counting the batches it takes. */
function countingRunner(): { taken: number; runner: Parameters<typeof registerSoloRun>[0] } {
  const counter = {
    taken: 0,
    runner: {
      runsAlone: (jobs: readonly Job[], options: ExecuteOptions) => {
        const alone = runsAlone(jobs, options);
        if (alone) counter.taken++;
        return alone;
      },
      SoloRun,
    },
  };
  return counter;
}

// Half the cases without approvals or signals, so that most reach the solo run (a batch signal
// too, which it takes); the rest check that the batches it leaves to the engine are unchanged.
const oneJob: fc.Arbitrary<Case> = fc
  .tuple(
    caseArbitrary(1).filter((c) => c.tools.length === 1),
    fc.boolean(),
  )
  .map(([c, plain]) => ({
    ...c,
    mode: 'batch' as const,
    ...(plain ? { approvals: undefined, abortAt: undefined, jobAborts: [null] } : {}),
  }));

describe('executeBatch: a batch of one call (operators/internal/solo-run.ts)', function () {
  this.timeout(scaled(60_000));

  afterEach(() => registerSoloRun({ runsAlone, SoloRun }));

  it('gives the engine’s events and tool subscriptions, frame for frame, on 2,000 random batches of one', () => {
    const counting = countingRunner();
    fc.assert(
      fc.property(oneJob, (spec) => {
        registerSoloRun(undefined);
        const engine = trace(spec, 'engine');
        registerSoloRun(counting.runner);
        const solo = trace(spec, 'engine');
        expect(solo, 'solo run (actual) against the engine (expected)').to.deep.equal(engine);
        expect(solo, 'solo run (actual) against the model (expected)').to.deep.equal(
          trace(spec, 'model'),
        );
      }),
      { numRuns: 2_000, seed: 0x50_10 },
    );
    // About half qualify: no approvals, no job signal, no resource function.
    expect(counting.taken).to.be.greaterThan(700);
  });

  it('takes only batches where turn-taking has nothing to decide', () => {
    const tool: Tool = { name: 't', description: '', execute: () => of() };
    const job: Job = { tool, call: { id: 'c', args: '{}' } };
    const signal = new AbortController().signal;
    expect(runsAlone([job], {})).to.equal(true);
    expect(runsAlone([job], { maxParallel: 1, timeout: 5, capacities: { fs: 2 } })).to.equal(true);
    expect(runsAlone([{ ...job, tool: { ...tool, resource: 'fs' } }], {})).to.equal(true);
    expect(runsAlone([{ ...job, tool: undefined as unknown as Tool }], {})).to.equal(true);
    expect(runsAlone([], {})).to.equal(false);
    expect(runsAlone([job, job], {})).to.equal(false);
    expect(runsAlone([job], { approve: () => true })).to.equal(false);
    expect(runsAlone([job], { signal })).to.equal(true);
    expect(runsAlone([{ ...job, signal }], {})).to.equal(false);
    expect(runsAlone([{ ...job, tool: { ...tool, resource: () => 'fs' } }], {})).to.equal(false);
    expect(
      runsAlone([{ ...job, tool: { ...tool, resource: { key: 'fs', capacity: 0 } } }], {}),
    ).to.equal(false);
    expect(runsAlone([null as unknown as Job], {})).to.equal(false);
  });

  it('cancels the call as soon as a consumer stops at a progress event it emits while starting', () => {
    let tornDown = false;
    const held: Tool = {
      name: 'held',
      description: '',
      execute: () =>
        new Observable((subscriber) => {
          subscriber.next({ final: false, result: { output: 'working' } });
          return () => (tornDown = true);
        }),
    };
    const seen: ExecutionEvent[] = [];
    executeBatch([{ tool: held, call: { id: 'c', args: '{}' } }])
      .pipe(take(1))
      .subscribe((event) => seen.push(event));
    expect(seen.map((e) => e.final)).to.deep.equal([false]);
    expect(tornDown).to.equal(true);

    // A typed function run directly sees its signal aborted right after the progress it reported.
    let abortedAfterProgress: boolean | undefined;
    const typed = tool({
      name: 'typed',
      description: 'Reports progress, then waits.',
      parameters: z.object({}),
      execute: (_args, context) => {
        context.progress('working');
        abortedAfterProgress = context.signal.aborted;
        return new Promise<string>(() => undefined);
      },
    });
    executeBatch([{ tool: typed, call: { id: 'c', args: '{}' } }])
      .pipe(take(1))
      .subscribe(() => undefined);
    expect(abortedAfterProgress).to.equal(true);
  });

  it('refuses a capacity that cannot be before the call runs, as the engine does', () => {
    let ran = 0;
    const tool: Tool = {
      name: 't',
      description: '',
      execute: () => {
        ran++;
        return of({ final: true as const, result: { output: 'ok' } });
      },
    };
    const seen: unknown[] = [];
    executeBatch([{ tool, call: { id: 'c', args: '{}' } }], { capacities: { fs: 0 } }).subscribe({
      next: (event: ExecutionEvent) => seen.push(event),
      error: (err: unknown) => seen.push(err),
    });
    expect(ran).to.equal(0);
    expect(seen).to.have.length(1);
    expect(seen[0]).to.be.instanceOf(RangeError);
    expect(String(seen[0])).to.include('capacities["fs"]');
  });
});
