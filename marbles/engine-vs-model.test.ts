import { expect } from 'chai';
import fc from 'fast-check';
import { caseArbitrary, trace } from './differential.js';

describe('the engine against the pipeline model (marbles/pipeline-model.ts)', function () {
  this.timeout(60_000);

  it('gives the same events and tool subscriptions, frame for frame, on 3,000 random batches', () => {
    fc.assert(
      fc.property(caseArbitrary(), (spec) => {
        expect(trace(spec, 'engine')).to.deep.equal(trace(spec, 'model'));
      }),
      { numRuns: 3000, seed: 42 },
    );
  });

  it("tells the engine from a model with a planted bug: a chain's next call not preferred for the slot it frees", () => {
    const found = fc.check(
      fc.property(caseArbitrary(), (spec) => {
        expect(trace(spec, 'engine')).to.deep.equal(trace(spec, 'model', true));
      }),
      { numRuns: 3000, seed: 42 },
    );
    expect(found.failed, 'the planted bug went unnoticed').to.equal(true);
  });
});
