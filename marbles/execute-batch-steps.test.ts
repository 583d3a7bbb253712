import { expect } from 'chai';
import { ignoreElements, merge, type Observable, tap, timer } from 'rxjs';
import type { ToolContext, ToolEvent } from '../lib/contract.js';
import { CancelledError, TimeoutError } from '../lib/errors.js';
import type { ToolRecord } from '../lib/records.js';
import { registerSteps, STEP_NS } from '../lib/steps.js';
import { executeBatch } from '../operators/execute-batch.js';
import type { BatchOptions } from '../operators/resume-log.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

/**
 * A tool whose call begins the step `name` at frame `at` (its function returns `step$`, the step's
 * Observable) and ends with `final$`; each step's outcome is kept in `settled`.
 */
function steppingTool(
  steps: { name: string; at: number; step$: Observable<string> }[],
  final$: Observable<ToolEvent>,
  settled: string[],
) {
  return stubTool(
    'fetch',
    (_call, context: ToolContext) =>
      merge(
        final$,
        ...steps.map(({ name, at, step$ }) =>
          timer(at).pipe(
            tap(() => {
              context
                .step(name, () => step$)
                .then(
                  (value) => settled.push(`${name}: ${value}`),
                  (err: Error) => settled.push(`${name} failed: ${err.message}`),
                );
            }),
            ignoreElements(),
          ),
        ),
      ),
    { replay: 'safe' },
  );
}

const stepRecord = (step: string, value: unknown): ToolRecord => ({
  ns: STEP_NS,
  data: JSON.stringify({ step, value }),
});

/** Lets the steps' Promises settle and their records be written. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

registerSteps(); // as the Node entry does

describe('executeBatch: steps (context.step)', () => {
  it("runs a step's Observable once, in the call's time, and records its last value once", async () => {
    const written: ToolRecord[] = [];
    const settled: string[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const download = cold('  -a-b|');
      const subs = '           -^---!';
      const final = cold('     ------(f|)', toolEvents);
      const expected = '       ------(f|)';
      const tool = steppingTool([{ name: 'download', at: 1, step$: download }], final, settled);
      const recorder = (record: ToolRecord) => void written.push(record);
      expectObservable(executeBatch([job(tool, 'c1')], { recorder })).toBe(expected, {
        f: finalEvent(0, 'c1', 'done'),
      });
      expectSubscriptions(download.subscriptions).toBe(subs);
    });
    await settle();
    expect(settled).to.deep.equal(['download: b']);
    expect(written).to.deep.equal([stepRecord('download', 'b')]);
  });

  it('a resumed call skips the steps its earlier run finished and runs the others', async () => {
    const written: ToolRecord[] = [];
    const settled: string[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const download = cold('  -a|');
      const unpack = cold('    --u|');
      const unpackSubs = '     -^--!';
      const final = cold('     ------(f|)', toolEvents);
      const expected = '       ------(f|)';
      const tool = steppingTool(
        [
          { name: 'download', at: 1, step$: download },
          { name: 'unpack', at: 1, step$: unpack },
        ],
        final,
        settled,
      );
      const resume: BatchOptions['resume'] = {
        started: [{ callId: 'c1' }],
        recorded: [{ callId: 'c1', record: stepRecord('download', 'earlier') }],
      };
      const recorder = (record: ToolRecord) => void written.push(record);
      expectObservable(executeBatch([job(tool, 'c1')], { resume, recorder })).toBe(expected, {
        f: finalEvent(0, 'c1', 'done'),
      });
      expectSubscriptions(download.subscriptions).toBe([]);
      expectSubscriptions(unpack.subscriptions).toBe(unpackSubs);
    });
    await settle();
    expect(settled).to.deep.equal(['download: earlier', 'unpack: u']);
    expect(written).to.deep.equal([stepRecord('unpack', 'u')]);
  });

  it("a step whose Observable errors is not recorded, and its error is the step's", async () => {
    const written: ToolRecord[] = [];
    const settled: string[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const download = cold('  -a#', undefined, new Error('disk full'));
      const subs = '           -^-!';
      const final = cold('     ----(f|)', toolEvents);
      const expected = '       ----(f|)';
      const tool = steppingTool([{ name: 'download', at: 1, step$: download }], final, settled);
      const recorder = (record: ToolRecord) => void written.push(record);
      expectObservable(executeBatch([job(tool, 'c1')], { recorder })).toBe(expected, {
        f: finalEvent(0, 'c1', 'done'),
      });
      expectSubscriptions(download.subscriptions).toBe(subs);
    });
    await settle();
    expect(settled).to.deep.equal(['download failed: disk full']);
    expect(written).to.deep.equal([]);
  });

  it("unsubscribing the batch mid-step unsubscribes the step's Observable; nothing is recorded", async () => {
    const written: ToolRecord[] = [];
    const settled: string[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const download = cold('  -----a|');
      const subs = '           -^--!';
      const final = cold('     --------(f|)', toolEvents);
      const unsubscribe = '    ^---!';
      const tool = steppingTool([{ name: 'download', at: 1, step$: download }], final, settled);
      const recorder = (record: ToolRecord) => void written.push(record);
      expectObservable(executeBatch([job(tool, 'c1')], { recorder }), unsubscribe).toBe('');
      expectSubscriptions(download.subscriptions).toBe(subs);
    });
    await settle();
    expect(settled).to.deep.equal([`download failed: ${new CancelledError().message}`]);
    expect(written).to.deep.equal([]);
  });

  it('a timeout mid-step ends the step with the TimeoutError; nothing is recorded', async () => {
    const written: ToolRecord[] = [];
    const settled: string[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const download = cold('  -----a|');
      const subs = '           -^-!';
      const final = cold('     --------(f|)', toolEvents);
      const expected = '       ---(t|)';
      const tool = steppingTool([{ name: 'download', at: 1, step$: download }], final, settled);
      const recorder = (record: ToolRecord) => void written.push(record);
      expectObservable(executeBatch([job(tool, 'c1')], { recorder, timeout: 3 })).toBe(expected, {
        t: errorEvent(0, 'c1', new TimeoutError(3)),
      });
      expectSubscriptions(download.subscriptions).toBe(subs);
    });
    await settle();
    expect(settled).to.deep.equal([`download failed: ${new TimeoutError(3).message}`]);
    expect(written).to.deep.equal([]);
  });
});
