/**
 * The web front's pure parts: the page's fold of the event stream, the timeline's lanes, and
 * reading and replaying a saved run.
 */
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import {
  applyRecord,
  batchNow,
  emptyPageState,
  waitingFor,
  type ConnectionRecord,
  type PageState,
} from '../../cli/ui/page-state.js';
import { parseRun, replayRun } from '../../cli/ui/replay-run.js';
import type { RunRecord, StreamRecord } from '../../cli/ui/run-records.js';
import { layoutTimeline, type TimedCall } from '../../cli/ui/timeline-lanes.js';
import { UsageError } from '../../cli/usage-error.js';

const batch: RunRecord = {
  type: 'batch',
  jobs: [
    { index: 0, callId: 'a', name: 'bash', args: '{}', resource: 'shell:session' },
    { index: 1, callId: 'b', name: 'bash', args: '{}', resource: 'shell:session' },
    { index: 2, callId: 'c', name: 'slow_count', args: '{"to":4}', resource: '' },
  ],
};

const run: RunRecord[] = [
  batch,
  { type: 'start', index: 0, at: 0 },
  { type: 'start', index: 2, at: 2 },
  {
    type: 'event',
    at: 50,
    index: 2,
    callId: 'c',
    final: false,
    result: { output: 'counted 1 of 4', details: { progress: 1, total: 4 } },
  },
  { type: 'event', at: 100, index: 0, callId: 'a', final: true, result: { output: 'ok' } },
  { type: 'start', index: 1, at: 100 },
  {
    type: 'event',
    at: 120,
    index: 2,
    callId: 'c',
    final: true,
    error: { name: 'CancelledError', code: 'cancelled', message: 'call cancelled by the user' },
  },
  {
    type: 'event',
    at: 180,
    index: 1,
    callId: 'b',
    final: true,
    error: { name: 'Error', message: 'exit code 1' },
  },
  { type: 'output', items: [] },
];

const refused = { name: 'NotApprovedError', message: 'call "b" was not approved' };

function fold(records: readonly (StreamRecord | ConnectionRecord)[], receivedAt = 0): PageState {
  return records.reduce(
    (state, record) => applyRecord(state, { record, receivedAt }),
    emptyPageState(),
  );
}

describe('web front: the page state', () => {
  it('shows every call waiting after the batch record, with its resource chain', () => {
    const state = fold([{ type: 'session', mode: 'replay', title: 'run.jsonl' }, batch]);
    expect(state).to.include({ mode: 'replay', title: 'run.jsonl', phase: 'idle', run: 1 });
    expect(state.batch!.rows.map((row) => [row.phase, row.after])).to.deep.equal([
      ['waiting', -1],
      ['waiting', 0],
      ['waiting', -1],
    ]);
  });

  it('folds a run into phases, progress, outputs and errors, and finishes on the output', () => {
    const partway = fold(run.slice(0, 4));
    expect(partway.phase).to.equal('running');
    expect(partway.batch!.rows[2]).to.include({ phase: 'running', message: 'counted 1 of 4' });
    expect(partway.batch!.rows[2]!.progress).to.deep.equal({ progress: 1, total: 4 });

    const state = fold(run);
    expect(state.phase).to.equal('finished');
    const rows = state.batch!.rows;
    expect(rows.map((row) => row.phase)).to.deep.equal(['done', 'failed', 'cancelled']);
    expect(rows.map((row) => [row.startedAt, row.endedAt])).to.deep.equal([
      [0, 100],
      [100, 180],
      [2, 120],
    ]);
    expect(rows[0]!.output).to.equal('ok');
    expect(rows[2]!.error?.message).to.equal('call cancelled by the user');
  });

  it('starts afresh on a new batch record, as when the turn is run again', () => {
    const state = fold([...run, batch]);
    expect(state).to.include({ phase: 'idle', run: 2, output: undefined });
    expect(state.batch!.rows.every((row) => row.phase === 'waiting')).to.equal(true);
  });

  it('runs the clock from the latest timed record while running, and stops it at the end', () => {
    const state = fold(run.slice(0, 4), 1000); // the record at 50 ms arrived at page time 1000
    expect(batchNow(state, 1200)).to.equal(250);
    expect(batchNow(fold(run, 1000), 5000)).to.equal(180);
  });

  it('knows which calls wait for an approval or an answer, until they have it or end', () => {
    const question = {
      message: 'Go on?',
      schema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } },
    };
    const asking: RunRecord[] = [
      batch,
      { type: 'approval', index: 0, at: 0, state: 'asked' },
      { type: 'approval', index: 1, at: 0, state: 'asked' },
      { type: 'start', index: 2, at: 1 },
      { type: 'event', at: 2, index: 2, callId: 'c', final: false, question },
    ];
    const state = fold(asking);
    expect([...state.approvals]).to.deep.equal([0, 1]);
    expect(state.batch!.rows[0]).to.include({ phase: 'approving' });
    expect(state.questions.get(2)).to.deep.equal(question);
    expect(state.batch!.rows[2]).to.include({ phase: 'asking' });
    expect(state.batch!.rows[2]!.question).to.deep.equal(question);

    const answer = { action: 'accept' as const, content: { ok: true } };
    const later = fold([
      ...asking,
      { type: 'approval', index: 0, at: 3, state: 'approved' },
      { type: 'event', at: 4, index: 2, callId: 'c', final: false, question, answer },
      { type: 'event', at: 5, index: 1, callId: 'b', final: true, error: refused },
    ]);
    expect([...later.approvals]).to.deep.equal([]);
    expect(later.batch!.rows[0]).to.include({ phase: 'waiting' });
    expect(later.questions.size).to.equal(0);
    expect(later.batch!.rows[2]).to.include({ phase: 'running' });
    expect(later.batch!.rows[1]).to.include({ phase: 'failed' });
    // The call's next question is its second: the number its answer names.
    expect(later.asked.get(2)).to.equal(1);
    const again = fold([
      ...asking,
      { type: 'event', at: 4, index: 2, callId: 'c', final: false, question, answer },
      { type: 'event', at: 6, index: 2, callId: 'c', final: false, question },
    ]);
    expect(again.asked.get(2)).to.equal(2);
    // A fresh run forgets them.
    expect(fold([...asking, batch]).approvals.size).to.equal(0);
    expect(fold([...asking, batch]).asked.size).to.equal(0);
  });

  it('shows the same waits after the stream reconnects and sends the run again', () => {
    const question = { message: 'Go on?', schema: { type: 'object' as const, properties: {} } };
    const session: StreamRecord = { type: 'session', mode: 'live', title: 't' };
    const records: StreamRecord[] = [
      session,
      batch,
      { type: 'approval', index: 0, at: 0, state: 'asked' },
      { type: 'start', index: 2, at: 1 },
      { type: 'event', at: 2, index: 2, callId: 'c', final: false, question },
    ];
    const once = fold([{ type: 'connection', open: true }, ...records]);
    const again = fold([
      { type: 'connection', open: true },
      ...records,
      { type: 'connection', open: false },
      { type: 'connection', open: true },
      ...records,
    ]);
    for (const state of [once, again]) {
      expect([...state.approvals]).to.deep.equal([0]);
      expect([...state.questions]).to.deep.equal([[2, question]]);
      expect([...state.asked]).to.deep.equal([[2, 1]]);
      expect(state.batch!.rows.map((r) => r.phase)).to.deep.equal([
        'approving',
        'waiting',
        'asking',
      ]);
    }
    expect(again.connected).to.equal(true);
  });

  it('times each wait for an approval as the batch clock runs, and keeps it with the decision', () => {
    const asking: RunRecord[] = [
      batch,
      { type: 'start', index: 2, at: 0 },
      { type: 'approval', index: 0, at: 10, state: 'asked' },
      { type: 'approval', index: 1, at: 40, state: 'asked' },
    ];
    // The record at 40 ms arrived at page time 1000: page time 3000 is batch time 2040.
    const state = fold(asking, 1000);
    const now = batchNow(state, 3000);
    expect(now).to.equal(2040);
    expect(waitingFor(state, 0, now)).to.equal(2030);
    expect(waitingFor(state, 1, now)).to.equal(2000);
    expect(waitingFor(state, 2, now)).to.equal(undefined);
    expect(state.reviews.size).to.equal(0);

    const decided = fold([
      ...asking,
      { type: 'approval', index: 0, at: 1510, state: 'approved', args: '{"x":1}' },
      { type: 'approval', index: 1, at: 2540, state: 'refused', note: 'not here' },
    ]);
    expect(waitingFor(decided, 0, 3000)).to.equal(undefined);
    expect(waitingFor(decided, 1, 3000)).to.equal(undefined);
    expect(decided.reviews.get(0)).to.deep.equal({
      decision: 'approved',
      waited: 1500,
      args: '{"x":1}',
    });
    expect(decided.reviews.get(1)).to.deep.equal({
      decision: 'refused',
      waited: 2500,
      note: 'not here',
    });
    // A call that ends while it waits (the batch cancelled) stops waiting; a new run forgets all.
    const ended = fold([
      ...asking,
      { type: 'event', at: 60, index: 0, callId: 'a', final: true, error: refused },
    ]);
    expect(waitingFor(ended, 0, 100)).to.equal(undefined);
    expect(fold([...asking, batch]).waitingSince.size).to.equal(0);
  });

  it('tracks the connection', () => {
    const state = fold([{ type: 'connection', open: true }]);
    expect(state.connected).to.equal(true);
    applyRecord(state, { record: { type: 'connection', open: false }, receivedAt: 0 });
    expect(state.connected).to.equal(false);
  });
});

describe('web front: the timeline lanes', () => {
  const call = (
    index: number,
    resource: string,
    startedAt: number,
    endedAt: number,
  ): TimedCall => ({
    index,
    resource,
    startedAt,
    endedAt,
  });

  it('gives every resource a lane, first, whether or not its calls have started', () => {
    const layout = layoutTimeline([
      call(0, '', 0, 10),
      call(1, 'fs', -1, -1),
      call(2, 'shell:session', 0, -1),
      call(3, 'fs', -1, -1),
    ]);
    expect(layout.lanes.map((lane) => lane.key)).to.deep.equal(['fs', 'shell:session', 'slot-1']);
    expect(layout.laneOf).to.deep.equal(['slot-1', '', 'shell:session', '']);
  });

  it('gives a counted resource a lane more for each call running beside another', () => {
    const layout = layoutTimeline([
      call(0, 'sandbox', 0, 100),
      call(1, 'sandbox', 0, 50), // beside 0: sandbox #2
      call(2, 'sandbox', 50, -1), // starts as 1 ends: its lane again
      call(3, 'fs', 0, 10),
      call(4, 'sandbox', 100, 120), // starts as 0 ends: the first lane
    ]);
    expect(layout.laneOf).to.deep.equal(['sandbox', 'sandbox#2', 'sandbox#2', 'fs', 'sandbox']);
    expect(layout.lanes.map((lane) => lane.label)).to.deep.equal(['sandbox', 'sandbox #2', 'fs']);
  });

  it('puts calls without a resource in the first slot free when they start', () => {
    const layout = layoutTimeline([
      call(0, '', 0, 100),
      call(1, '', 10, -1), // still running: holds slot 2
      call(2, '', 100, 150), // starts as 0 ends: slot 1 again
      call(3, '', 120, 130), // 1 and 2 are running: slot 3
      call(4, '', 160, 170), // slot 1 is free again
    ]);
    expect(layout.laneOf).to.deep.equal(['slot-1', 'slot-2', 'slot-1', 'slot-3', 'slot-1']);
    expect(layout.lanes.map((lane) => lane.label)).to.deep.equal(['slot 1', 'slot 2', 'slot 3']);
  });

  it('keeps a call in its lane as the batch goes on', () => {
    const early = layoutTimeline([call(0, '', 0, -1), call(1, '', 5, -1)]);
    const later = layoutTimeline([call(0, '', 0, 50), call(1, '', 5, 40), call(2, '', 60, -1)]);
    expect(later.laneOf.slice(0, 2)).to.deep.equal(early.laneOf);
  });
});

describe('web front: saved runs', () => {
  const jsonl = (records: readonly unknown[]): string =>
    records.map((r) => JSON.stringify(r)).join('\n');

  it('reads the JSON lines of agenttool run --json', () => {
    expect(parseRun(`${jsonl(run)}\n\n`, 'run.jsonl')).to.deep.equal(run);
  });

  it('ends a run saved without its output record with an empty one', () => {
    const records = parseRun(jsonl(run.slice(0, 3)), 'run.jsonl');
    expect(records.at(-1)).to.deep.equal({ type: 'output', items: [] });
  });

  const bad: [string, string, RegExp][] = [
    ['an empty file', '\n', /^run.jsonl: empty run$/],
    ['a line that is not JSON', `${jsonl([batch])}\n{oops`, /^run.jsonl: line 2: not valid JSON/],
    ['a record of another kind', '{"type":"message"}', /line 1: not a record of "agenttool run/],
    ['no batch record first', jsonl(run.slice(1)), /line 1: a saved run starts with its "batch"/],
    ['a second batch', jsonl([batch, batch]), /line 2: a second "batch" record/],
    ['a job that is not there', jsonl([batch, { ...run[1], index: 3 }]), /line 2: no job 3/],
    [
      'time going back',
      jsonl([batch, { type: 'start', index: 0, at: 9 }, { type: 'start', index: 1, at: 3 }]),
      /line 3: "at" must be a number of ms, never going back/,
    ],
    ['a record after the output', jsonl([...run, run[1]]), /line 10: a record after the "output"/],
  ];
  for (const [what, text, message] of bad)
    it(`refuses ${what}, saying where`, () => {
      expect(() => parseRun(text, 'run.jsonl'))
        .to.throw(UsageError)
        .with.property('message')
        .that.matches(message);
    });

  it('replays the records at their recorded times, scaled by the speed', () => {
    const scheduler = new TestScheduler(() => undefined);
    const seen: [number, RunRecord][] = [];
    let completedAt = -1;
    scheduler.run(() => {
      const source = replayRun(run, { title: 't', speed: 2, scheduler });
      const control = { signal: new AbortController().signal } as never;
      source.run(control).subscribe({
        next: (record) => seen.push([scheduler.now(), record]),
        complete: () => (completedAt = scheduler.now()),
      });
    });
    expect(seen.map(([, record]) => record)).to.deep.equal(run);
    // Recorded at 0, 0, 2, 50, 100, 100, 120 and 180 ms; the output record comes with the last.
    expect(seen.map(([at]) => at)).to.deep.equal([0, 0, 1, 25, 50, 50, 60, 90, 90]);
    expect(completedAt).to.equal(90);
  });
});
