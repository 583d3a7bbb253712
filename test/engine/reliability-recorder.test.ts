import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { tool, type ToolRecord, type Recordable, type ToolCall } from '../../index.js';
import { batchResults, executeBatch, type Job } from '../../operators/index.js';
import { scaled } from '../support/time.js';

class Step implements Recordable {
  constructor(
    readonly call: string,
    readonly step: number,
  ) {}
  recordNS(): string {
    return 'test:step';
  }
}

/** Records three steps, one after another, each once the one before is durable. */
const stepper = tool({
  name: 'stepper',
  description: 'Records three steps',
  parameters: z.object({ n: z.number().int() }),
  async execute({ n }, context) {
    const failed: number[] = [];
    for (let step = 0; step < 3; step++) {
      try {
        await context.record(new Step(context.call.id, step));
      } catch (err) {
        failed.push(step);
        if (!(err instanceof Error)) throw new Error('the recorder failure is not an Error');
      }
    }
    return failed.length === 0 ? `recorded ${n}` : `failed steps ${failed.join(',')}`;
  },
});

const jobsOf = (count: number): Job[] =>
  Array.from({ length: count }, (_, i) => ({
    tool: stepper,
    call: { id: `c${i}`, args: `{"n":${i}}` },
  }));

/** A recorder that takes 0 to 3 ms per record, and the records it has written, by call id. */
function slowRecorder(fails: (record: Step) => 'reject' | 'throw' | false = () => false) {
  const written = new Map<string, number[]>();
  let pending = 0;
  let mostPending = 0;
  const recorder = (record: ToolRecord, call: ToolCall): Promise<void> => {
    const step = JSON.parse(record.data) as Step;
    expect(record.ns).to.equal('test:step');
    expect(step.call).to.equal(call.id);
    const failure = fails(step);
    if (failure === 'throw') throw new Error(`recorder threw on ${call.id}`);
    pending++;
    mostPending = Math.max(mostPending, pending);
    return new Promise((resolve, reject) =>
      setTimeout(
        () => {
          pending--;
          if (failure === 'reject') return reject(new Error(`disk full at ${call.id}`));
          written.set(call.id, [...(written.get(call.id) ?? []), step.step]);
          resolve();
        },
        Math.floor(Math.random() * 4),
      ),
    );
  };
  return { recorder, written, mostPending: () => mostPending, pending: () => pending };
}

describe('reliability: a slow or failing recorder', function () {
  this.timeout(scaled(10_000));

  it('loses and duplicates no record across a 1k-call batch with a slow recorder', async () => {
    const { recorder, written, mostPending } = slowRecorder();
    const jobs = jobsOf(1_000);
    const finalsSeen = new Map<string, number>();
    const events = await lastValueFrom(
      executeBatch(jobs, { maxParallel: 64, recorder }).pipe(toArray()),
    );
    for (const event of events.filter((e) => e.final)) {
      // A call ends only after its records are durable.
      expect(written.get(event.callId), event.callId).to.deep.equal([0, 1, 2]);
      finalsSeen.set(event.callId, (finalsSeen.get(event.callId) ?? 0) + 1);
      expect(event.result?.output).to.equal(`recorded ${event.callId.slice(1)}`);
    }
    expect(finalsSeen.size).to.equal(1_000);
    expect([...finalsSeen.values()].every((n) => n === 1)).to.equal(true);
    expect(written.size).to.equal(1_000);
    expect([...written.values()].flat()).to.have.length(3_000);
    expect(mostPending()).to.be.above(1); // the recorder was really slow: writes overlapped
  });

  it('hands each failure to its own call, and writes every other record exactly once', async () => {
    const { recorder, written } = slowRecorder((step) => {
      const i = Number(step.call.slice(1));
      if (i % 7 === 0 && step.step === 1) return 'reject';
      if (i % 11 === 0 && step.step === 2) return 'throw';
      return false;
    });
    const settled = await batchResults(jobsOf(500), { maxParallel: 32, recorder });
    settled.forEach((outcome, i) => {
      const failed = [...(i % 7 === 0 ? [1] : []), ...(i % 11 === 0 ? [2] : [])];
      const expected = failed.length === 0 ? `recorded ${i}` : `failed steps ${failed.join(',')}`;
      expect(outcome, `c${i}`).to.deep.equal({ result: { output: expected } });
      expect(written.get(`c${i}`)).to.deep.equal([0, 1, 2].filter((s) => !failed.includes(s)));
    });
  });

  it('lets a call cancelled while its record is being written end cleanly, the record written once', async () => {
    const { recorder, written, pending } = slowRecorder();
    const jobs = jobsOf(200);
    const controller = new AbortController();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const events = lastValueFrom(
        executeBatch(jobs, { maxParallel: 200, recorder, signal: controller.signal }).pipe(
          toArray(),
        ),
      );
      let writingAtAbort = 0;
      setTimeout(() => {
        writingAtAbort = pending();
        controller.abort();
      }, 2);
      const finals = (await events).filter((e) => e.final);
      expect(finals).to.have.length(200);
      expect(writingAtAbort, 'records being written at the abort').to.be.above(0);
      while (pending() > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      for (const steps of written.values()) expect(steps).to.deep.equal(steps.map((_, i) => i));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
