/**
 * The Angular example's pipeline (examples/angular-agent.component.ts), without Angular: the rows
 * its signal shows as a batch runs, in virtual time. The component itself is checked by the
 * typecheck against @angular/core's own types.
 */
import { expect } from 'chai';
import { map, NEVER, of } from 'rxjs';
import { CancelledError, type ProgressInfo } from '../index.js';
import { final, progress, stubTool } from '../testing/index.js';
import { job, testScheduler } from '../marbles/support.js';
import type { CallPhase, CallState } from '../index.js';
import { callStates } from '../examples/angular-agent.component.js';

const half: ProgressInfo = { progress: 1, total: 2, message: 'half way' };

describe('the Angular example: callStates', () => {
  it('shows the rows waiting, then after each start, progress and end', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-----p----(f|)', {
        p: progress({ output: 'half way', details: half }),
        f: final('A'),
      });
      const b = cold('------(f|)', { f: final('B') });
      const jobs = [
        job(stubTool('a', a, { resource: 'r' }), 'a'),
        job(stubTool('b', b, { resource: 'r' }), 'b'),
      ];
      // What the template reads of each call.
      const shown = (calls: readonly CallState[]) =>
        calls.map(({ callId, phase, message, progress, settled }) => ({
          callId,
          phase,
          message,
          ...(progress && { progress }),
          ...(settled && { settled }),
        }));
      const row = (callId: string, phase: CallPhase, extra: Partial<CallState> = {}) => ({
        callId,
        phase,
        message: '',
        ...extra,
      });
      const aDone = { message: 'A', progress: half, settled: { result: { output: 'A' } } };
      expectObservable(callStates(jobs).pipe(map(shown))).toBe('(wx)-p----(ey)--(z|)', {
        w: [row('a', 'waiting'), row('b', 'waiting')],
        x: [row('a', 'running'), row('b', 'waiting')],
        p: [row('a', 'running', { message: 'half way', progress: half }), row('b', 'waiting')],
        e: [row('a', 'done', aDone), row('b', 'waiting')],
        y: [row('a', 'done', aDone), row('b', 'running')],
        z: [
          row('a', 'done', aDone),
          row('b', 'done', { message: 'B', settled: { result: { output: 'B' } } }),
        ],
      });
    });
  });

  it('marks every unfinished call cancelled when the signal aborts', async () => {
    const controller = new AbortController();
    const never = stubTool('slow', NEVER);
    const jobs = [job(never, 'x'), job(stubTool('quick', of(final('ok'))), 'y')];
    const seen: (readonly CallState[])[] = [];
    const done = new Promise<void>((resolve) =>
      callStates(jobs, controller.signal).subscribe({
        next: (rows) => seen.push(rows),
        complete: resolve,
      }),
    );
    controller.abort();
    await done;
    const last = seen.at(-1)!;
    expect(last.map((r) => r.phase)).to.deep.equal(['cancelled', 'done']);
    expect(last[0]!.settled).to.deep.equal({ error: new CancelledError() });
  });

  it('emits a new array on each change and keeps the rows that did not change', () => {
    const jobs = [job(stubTool('a', of(final('A'))), 'a'), job(stubTool('b', NEVER), 'b')];
    const seen: (readonly CallState[])[] = [];
    const subscription = callStates(jobs).subscribe((rows) => seen.push(rows));
    subscription.unsubscribe();
    // waiting; a started; a done; b started.
    expect(seen.map((rows) => rows.map((r) => r.phase))).to.deep.equal([
      ['waiting', 'waiting'],
      ['running', 'waiting'],
      ['done', 'waiting'],
      ['done', 'running'],
    ]);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).to.not.equal(seen[i - 1]);
    expect(seen[2]![1]).to.equal(seen[0]![1]);
    expect(seen[3]![0]).to.equal(seen[2]![0]);
  });
});
