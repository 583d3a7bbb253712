import { expect } from 'chai';
import fc from 'fast-check';
import type { Observable } from 'rxjs';
import { NotApprovedError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import type { Approval, ExecutionEvent } from '../operators/job.js';
import { stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

interface JobSpec {
  resource: '' | 'fs' | 'net';
  duration: number;
  /** Answered at once, or at frame `at` by an Observable. */
  approval: { value: boolean; at: number | null };
}

const jobSpec: fc.Arbitrary<JobSpec> = fc.record({
  resource: fc.constantFrom('', '', 'fs', 'net'),
  duration: fc.integer({ min: 1, max: 3 }),
  approval: fc.record({
    value: fc.boolean(),
    at: fc.option(fc.nat(6), { freq: 2 }),
  }),
});

describe('executeBatch with approve: properties over random batches', () => {
  it('one final each, refused calls never run, approved ones after their answer and without idle slots, in bound and resource order', () => {
    fc.assert(
      fc.property(
        fc.array(jobSpec, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 3 }),
        (specs, maxParallel) => {
          const scheduler = testScheduler();
          const finals: [number, ExecutionEvent][] = [];
          let completedAt = -1;
          const subscriptions: { subscribedFrame: number; unsubscribedFrame: number }[][] = [];
          scheduler.run(({ cold }) => {
            const sources = specs.map((spec) =>
              cold(`${'-'.repeat(spec.duration)}(f|)`, toolEvents),
            );
            const jobs = specs.map((spec, i) =>
              job(stubTool(`t${i}`, sources[i]!, { resource: spec.resource }), `c${i}`),
            );
            const approve = (_job: unknown, index: number): Approval | Observable<Approval> => {
              const { value, at } = specs[index]!.approval;
              return at === null ? value : cold(`${'-'.repeat(at)}(y|)`, { y: value });
            };
            executeBatch(jobs, { maxParallel, approve }).subscribe({
              next: (event) => {
                if (event.final) finals.push([scheduler.now(), event]);
              },
              complete: () => (completedAt = scheduler.now()),
            });
            scheduler.schedule(() => {
              sources.forEach((source, i) => (subscriptions[i] = source.subscriptions));
            }, 100);
          });
          expect(completedAt).to.be.at.least(0);
          expect(finals.map(([, e]) => e.index).sort()).to.deep.equal(specs.map((_, i) => i));
          const runs: [number, number][] = [];
          specs.forEach((spec, i) => {
            const [at, final] = finals.find(([, e]) => e.index === i)!;
            const answeredAt = spec.approval.at ?? 0;
            const subs = subscriptions[i]!;
            if (!spec.approval.value) {
              expect(final.error).to.deep.equal(new NotApprovedError(`c${i}`));
              expect(at).to.equal(answeredAt);
              expect(subs).to.have.length(0);
            } else {
              expect(final.error).to.equal(undefined);
              expect(subs).to.have.length(1);
              expect(subs[0]!.subscribedFrame).to.be.at.least(answeredAt);
              runs[i] = [subs[0]!.subscribedFrame, subs[0]!.unsubscribedFrame];
            }
          });
          // The bound holds at every frame.
          for (let t = 0; t < 100; t++) {
            const running = runs.filter((r) => r !== undefined && r[0] <= t && t < r[1]).length;
            expect(running).to.be.at.most(maxParallel);
          }
          // A call waiting for its answer holds no slot: once approved, a call of no resource
          // waits only while every slot is taken.
          specs.forEach((spec, i) => {
            if (runs[i] === undefined || spec.resource !== '') return;
            for (let t = spec.approval.at ?? 0; t < runs[i][0]; t++) {
              const running = runs.filter((r) => r !== undefined && r[0] <= t && t < r[1]).length;
              expect(running, `frame ${t}, job ${i}`).to.equal(maxParallel);
            }
          });
          // A resource's approved calls run one after another, in job order.
          for (const resource of ['fs', 'net']) {
            const chain = runs.filter((r, i) => r !== undefined && specs[i]!.resource === resource);
            for (let k = 1; k < chain.length; k++)
              expect(chain[k]![0]).to.be.at.least(chain[k - 1]![1]);
          }
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  });
});
