import { expect } from 'chai';
import fc from 'fast-check';
import { caseArbitrary, expectSameTrace, trace, type Case } from './differential.js';
import { scaled } from '../test/support/time.js';

const rule6: Case = {
  mode: 'batch',
  tools: [
    { kind: 'cold', marble: '---(f|)', resource: 'fs', sequential: false },
    { kind: 'cold', marble: '-(f|)', resource: '', sequential: false },
    { kind: 'cold', marble: '-(f|)', resource: 'fs', sequential: false },
    { kind: 'cold', marble: '------(f|)', resource: '', sequential: false },
    { kind: 'cold', marble: '-(f|)', resource: '', sequential: false },
  ],
  arrivals: [],
  pushAfter: [null, null, null, null, null],
  sourceEnd: { how: 'complete', at: 0 },
  maxParallel: 2,
  sequential: false,
  timeout: undefined,
  onStart: undefined,
  abortAt: undefined,
  unsubscribeAt: undefined,
  take: undefined,
};

/**
 * Jobs pushed from the consumer's handler of a final emitted as a job arrives (its signal already
 * aborted) start, end and push more at once, and the engine compacts its job array meanwhile: the
 * arriving job's approval must still be read from the job itself.
 */
const pushedWhileArriving: Case = {
  ...rule6,
  mode: 'calls',
  tools: [
    { kind: 'cold', marble: '(f|)', resource: '', sequential: true },
    { kind: 'throws', marble: '(f|)', resource: '', sequential: true },
    { kind: 'cold', marble: '(f|)', resource: '', sequential: true },
  ],
  arrivals: [2, 0, 0],
  pushAfter: [null, 0, 1],
  maxParallel: 1,
  sequential: true,
  jobAborts: [0, null, null],
  approvals: [null, null, null],
};

describe('the engine against its pipeline model (marbles/pipeline-model.ts)', function () {
  this.timeout(scaled(120_000));

  it('agrees on a job arriving aborted whose final makes the consumer push jobs that end at once', () => {
    expectSameTrace(pushedWhileArriving);
  });

  it('gives the same events and tool subscriptions, frame for frame, on 3,000 random batches', () => {
    // Sync, async, failing and never-ending tools, resources, sequential tools, timeouts, onStart
    // refusals, aborts of the batch and of single jobs (running, waiting or before they arrive),
    // approvals (at once or later, granted or refused), unsubscription, take(n), jobs pushed from
    // the consumer's own handler, counted resources (stated by the tools, fixed or from the
    // arguments, and the application's capacities, now and then one that cannot be).
    fc.assert(
      fc.property(caseArbitrary(), (spec) => expectSameTrace(spec)),
      { numRuns: 3000, seed: 42 },
    );
  });

  it("catches a planted bug: a model whose chain's next call is not preferred for the slot it frees", () => {
    // Rule 6 of docs/engine.md: c (fs) must take the slot a (fs) frees at 3, before e.
    expect(trace(rule6, 'model').subscriptions).to.deep.include({
      c2: [[3, 4, '']],
      c4: [[4, 5, '']],
    });
    expect(trace(rule6, 'model', true).subscriptions).to.deep.include({ c4: [[3, 4, '']] });
    const found = fc.check(
      fc.property(caseArbitrary(), (spec) => expectSameTrace(spec, true)),
      { numRuns: 3000, seed: 42, endOnFailure: true },
    );
    expect(found.failed, 'the differential test missed the planted bug').to.equal(true);
  });

  it('catches a planted bug: a model that runs a counted resource one call at a time', () => {
    const found = fc.check(
      fc.property(caseArbitrary(), (spec) => expectSameTrace(spec, 'capacity')),
      { numRuns: 3000, seed: 42, endOnFailure: true },
    );
    expect(found.failed, 'the differential test missed the planted bug').to.equal(true);
  });
});
