import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { executeBatchWithStarts, type BatchStateInput, type Job } from '../../index.js';
import { final, stubTool } from '../../testing/index.js';

const job = (id: string): Job => ({
  tool: stubTool(id, of(final(`${id} done`))),
  call: { id, args: '' },
});

/** Each input as `start a` or `final a`, in order. */
const steps = (inputs: BatchStateInput[]): string[] =>
  inputs.map((input) => ('started' in input ? `start ${input.callId}` : `final ${input.callId}`));

describe('executeBatchWithStarts', () => {
  it('puts each start before the events of its call, and keeps the caller onStart', async () => {
    const seen: number[] = [];
    const inputs = await lastValueFrom(
      executeBatchWithStarts([job('a'), job('b')], {
        maxParallel: 1,
        onStart: (_job, index) => void seen.push(index),
      }).pipe(toArray()),
    );
    expect(steps(inputs)).to.deep.equal(['start a', 'final a', 'start b', 'final b']);
    expect(seen).to.deep.equal([0, 1]);
  });

  it('emits a start once an async onStart resolves, and none for a call it refuses', async () => {
    const inputs = await lastValueFrom(
      executeBatchWithStarts([job('a'), job('b')], {
        onStart: async (_job, index) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (index === 1) throw new Error('not now');
        },
      }).pipe(toArray()),
    );
    expect(steps(inputs)).to.deep.equal(['start a', 'final a', 'final b']);
    const refused = inputs.at(-1) as { error?: Error };
    expect(refused.error?.message).to.equal('not now');
  });
});
