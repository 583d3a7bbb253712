import { expect } from 'chai';
import { of } from 'rxjs';
import {
  batchResults,
  executeBatch,
  NotApprovedError,
  type Approval,
  type Job,
} from '../../index.js';
import { final, stubTool } from '../../testing/index.js';

const jobOf = (id: string): Job => ({
  tool: stubTool(id, of(final(`ran ${id}`))),
  call: { id, args: '' },
});

describe('approve with Promises', () => {
  it('runs what a Promise approves, refuses what it refuses, with the reason or its rejection', async () => {
    const answers: Record<string, Promise<Approval>> = {
      a: Promise.resolve(true),
      b: Promise.resolve(false),
      c: Promise.resolve({ approved: false, reason: 'not during a freeze' }),
      d: Promise.reject(new Error('reviewer offline')),
    };
    const settled = await batchResults(['a', 'b', 'c', 'd'].map(jobOf), {
      approve: (job) => answers[job.call.id]!,
    });
    expect(settled).to.deep.equal([
      { result: { output: 'ran a' } },
      { error: new NotApprovedError('b') },
      { error: new NotApprovedError('c', 'not during a freeze') },
      { error: new NotApprovedError('d', 'reviewer offline') },
    ]);
    const refused = settled[1] as { error: NotApprovedError };
    expect(refused.error.code).to.equal('not_approved');
    expect(refused.error.callId).to.equal('b');
  });

  it('ignores a Promise that settles after the batch was unsubscribed', async () => {
    let answer!: (approval: Approval) => void;
    const events: unknown[] = [];
    const subscription = executeBatch([jobOf('a')], {
      approve: () => new Promise<Approval>((resolve) => (answer = resolve)),
    }).subscribe((event) => events.push(event));
    subscription.unsubscribe();
    answer(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).to.deep.equal([]);
  });
});
