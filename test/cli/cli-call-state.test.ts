import { expect } from 'chai';
import { of } from 'rxjs';
import { CancelledError, type ExecutionEvent, type Job, type Tool } from '../../index.js';
import {
  countPhases,
  foldCall,
  initialState,
  reduceBatch,
  type BatchAction,
} from '../../cli/call-state.js';
import stringWidth from 'string-width';
import { LiveView } from '../../cli/views/live-view.js';
import { PlainView } from '../../cli/views/plain-view.js';
import { Screen } from '../support/screen.js';

const tool = (name: string, resource?: string): Tool => ({
  name,
  description: '',
  ...(resource === undefined ? {} : { resource }),
  execute: () => of({ final: true, result: { output: '' } }),
});
const job = (t: Tool, id: string): Job => ({ tool: t, call: { id, args: '{}' } });

describe('the state a view shows', () => {
  const jobs = [
    job(tool('bash', 'shell'), 'a'),
    job(tool('ls'), 'b'),
    job(tool('bash', 'shell'), 'c'),
  ];

  it('knows each call’s resource chain before anything runs', () => {
    const rows = initialState(jobs).rows;
    expect(rows.map((r) => [r.resource, r.after, r.phase])).to.deep.equal([
      ['shell', -1, 'waiting'],
      ['', -1, 'waiting'],
      ['shell', 0, 'waiting'],
    ]);
  });

  it('follows a call from start through progress to its end, and a cancelled waiting call never starts', () => {
    const lines: string[] = [];
    const view = new PlainView({ write: (line: string) => lines.push(line.trimEnd()) } as never);
    const state = initialState(jobs);
    const step = (action: Parameters<typeof reduceBatch>[1]) =>
      view.update(reduceBatch(state, action), action);
    step({ type: 'start', index: 0, at: 0 });
    step({
      type: 'event',
      at: 100,
      event: {
        index: 0,
        callId: 'a',
        final: false,
        result: { output: 'half', details: { progress: 1, total: 2 } },
      },
    });
    step({
      type: 'event',
      at: 250,
      event: { index: 0, callId: 'a', final: true, result: { output: 'line one\n  line two' } },
    });
    step({
      type: 'event',
      at: 300,
      event: { index: 2, callId: 'c', final: true, error: new CancelledError() },
    });
    const [first, , third] = state.rows;
    expect(first).to.deep.include({
      phase: 'done',
      startedAt: 0,
      endedAt: 250,
      message: 'line one line two',
      progress: { progress: 1, total: 2 },
    });
    expect(third).to.deep.include({
      phase: 'cancelled',
      startedAt: -1,
      endedAt: 300,
      message: 'call cancelled',
    });
    expect(lines).to.deep.equal([
      '[ 0.00s] #0 bash started (⛓ shell)',
      '[ 0.10s] #0 bash [█████░░░░░]  50% half',
      '[ 0.25s] #0 bash done in 0.25s: line one line two',
      '[ 0.30s] #2 bash cancelled before it started: call cancelled',
    ]);
  });
});

describe('the state a view shows, over a large batch', () => {
  /**
   * The rows an `n`-call batch's fold reads or writes, per event, as `agenttool run` folds every
   * call started and ended: each access to a row of `state.rows` is counted (a copy of the rows,
   * as folding once did, reads every one).
   */
  const touchedPerEvent = (n: number): number => {
    const many = Array.from({ length: n }, (_, i) => job(tool('ls'), `c${i}`));
    const state = initialState(many);
    let touched = 0;
    const isRow = (key: string | symbol) => typeof key === 'string' && /^\d+$/.test(key);
    const counted = new Proxy(state.rows, {
      get(target, key, receiver) {
        if (isRow(key)) touched++;
        return Reflect.get(target, key, receiver) as unknown;
      },
      set(target, key, value, receiver) {
        if (isRow(key)) touched++;
        return Reflect.set(target, key, value, receiver);
      },
    });
    (state as { rows: unknown }).rows = counted;
    for (let i = 0; i < n; i++) {
      reduceBatch(state, { type: 'start', index: i, at: i });
      reduceBatch(state, {
        type: 'event',
        at: i + 1,
        event: { index: i, callId: `c${i}`, final: true, result: { output: 'ok' } },
      });
    }
    const perEvent = touched / (2 * n);
    // In place: the rows are never replaced by a copy.
    expect(state.rows).to.equal(counted);
    expect(state.rows[n - 1]).to.deep.include({ phase: 'done', startedAt: n - 1, endedAt: n });
    return perEvent;
  };

  it('folds each event in constant time: it touches its own row alone, however large the batch', () => {
    const small = touchedPerEvent(10);
    expect(small).to.be.at.most(3);
    expect(touchedPerEvent(20_000)).to.equal(small);
  });

  it('keeps the count of calls in each phase right through every kind of change', () => {
    const n = 3000;
    const many = Array.from({ length: n }, (_, i) => job(tool('ls'), `c${i}`));
    const state = initialState(many);
    expect(state.counts).to.deep.equal(countPhases(state.rows));
    expect(state.counts.waiting).to.equal(n);
    // Each call takes a path of its own, by its index: approved first or not, asked a question,
    // cancelled before it starts, failed, or done; then events that change nothing (a second
    // start, an event after the final, an index out of range).
    const event = (i: number, at: number, rest: object): BatchAction => ({
      type: 'event',
      at,
      event: { index: i, callId: `c${i}`, final: false, ...rest } as ExecutionEvent,
    });
    const question = {
      mode: 'form' as const,
      message: 'sure?',
      requestedSchema: { type: 'object' as const, properties: {} },
    };
    for (let i = 0; i < n; i++) {
      const path = i % 6;
      if (path === 5) {
        reduceBatch(state, event(i, i, { final: true, error: new CancelledError() }));
        continue;
      }
      if (path === 1) foldCall(state, { index: i, callId: `c${i}`, approving: true }, i);
      if (path === 1 && i % 12 === 1) continue; // left waiting for its approval
      if (path === 1) foldCall(state, { index: i, callId: `c${i}`, approving: false }, i);
      reduceBatch(state, { type: 'start', index: i, at: i });
      reduceBatch(state, { type: 'start', index: i, at: i });
      if (path === 2) reduceBatch(state, event(i, i, { question }));
      if (path === 2 && i % 12 === 2) continue; // left asking
      if (path === 2) reduceBatch(state, event(i, i, { question, answer: { action: 'decline' } }));
      if (path === 3) continue; // left running
      if (path === 4) reduceBatch(state, event(i, i, { final: true, error: new Error('no') }));
      else reduceBatch(state, event(i, i, { final: true, result: { output: 'ok' } }));
      reduceBatch(state, event(i, i, { result: { output: 'late' } }));
    }
    reduceBatch(state, { type: 'start', index: n, at: n });
    expect(state.counts).to.deep.equal(countPhases(state.rows));
    expect(state.counts).to.deep.equal({
      waiting: 0,
      approving: n / 12,
      running: n / 6,
      asking: n / 12,
      done: n / 6 + n / 12 + n / 12,
      failed: n / 6,
      cancelled: n / 6,
    });
  });

  it('the live view draws a screenful: the calls from the first that has not ended, and a count of the rest', () => {
    const n = 5000;
    const many = Array.from({ length: n }, (_, i) => job(tool('ls'), `c${i}`));
    const state = initialState(many);
    let text = '';
    const out = { columns: 80, rows: 12, write: (chunk: string) => (text += chunk) };
    const view = new LiveView(out as unknown as NodeJS.WriteStream);
    // Calls end out of order: #0 to #99 and #101, while #100 still runs.
    for (let i = 0; i <= 101; i++) {
      reduceBatch(state, { type: 'start', index: i, at: i });
      if (i !== 100)
        reduceBatch(state, {
          type: 'event',
          at: i + 1,
          event: { index: i, callId: `c${i}`, final: true, result: { output: 'ok' } },
        });
      view.update(state);
    }
    view.notice('a notice'); // draws a frame
    view.finish(state);
    const lines = new Screen().write(text).text().split('\n');
    expect(lines[0]).to.equal('a notice');
    const rows = lines.slice(1);
    expect(rows).to.have.length(11);
    expect(rows[0]).to.match(/^▸ #100 +ls +running/);
    expect(rows[1]).to.match(/^✓ #101 +ls +done/);
    expect(rows[2]).to.match(/^· #102 +ls +waiting/);
    expect(rows[10]).to.equal('  … 4,990 more calls: 100 done, 4,890 waiting');
  });

  it('the live view reads a screenful of rows per frame, however large the batch', () => {
    const rowsReadPerFrame = (n: number): number => {
      const many = Array.from({ length: n }, (_, i) => job(tool('ls'), `c${i}`));
      const state = initialState(many);
      for (let i = 0; i < 50; i++) {
        reduceBatch(state, { type: 'start', index: i, at: i });
        if (i % 2 === 0)
          reduceBatch(state, {
            type: 'event',
            at: i + 1,
            event: { index: i, callId: `c${i}`, final: true, result: { output: 'ok' } },
          });
      }
      let read = 0;
      state.rows = new Proxy(state.rows, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) read++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      let text = '';
      const out = { columns: 80, rows: 12, write: (chunk: string) => (text += chunk) };
      const view = new LiveView(out as unknown as NodeJS.WriteStream);
      view.update(state);
      view.notice('first frame'); // the first frame also finds the first call still running
      read = 0;
      text = '';
      view.notice('second frame');
      view.finish(state);
      expect(new Screen().write(text).text()).to.include(
        `… ${(n - 10).toLocaleString('en-US')} more calls: 20 done, 20 running, ${(n - 50).toLocaleString('en-US')} waiting`,
      );
      return read / 2;
    };
    const small = rowsReadPerFrame(1000);
    expect(small).to.be.at.most(30);
    expect(rowsReadPerFrame(50_000)).to.equal(small);
  });

  it('keeps each row within the terminal’s width when names and messages hold CJK text or emoji', () => {
    const wide = [job(tool('検索ツール'), 'a'), job(tool('ls'), 'b'), job(tool('ls'), 'c')];
    const state = initialState(wide);
    let text = '';
    const out = { columns: 50, rows: 12, write: (chunk: string) => (text += chunk) };
    const view = new LiveView(out as unknown as NodeJS.WriteStream);
    reduceBatch(state, { type: 'start', index: 0, at: 0 });
    reduceBatch(state, { type: 'start', index: 1, at: 0 });
    const progress = (index: number, output: string) =>
      reduceBatch(state, {
        type: 'event',
        at: 1,
        event: { index, callId: 'abc'[index]!, final: false, result: { output } },
      });
    progress(0, '東京の天気を調べています。しばらくお待ちください。');
    progress(1, 'emoji 🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️🌧️ and more');
    view.update(state);
    view.finish(state);
    // eslint-disable-next-line no-control-regex
    const rows = text.split(/\n|\x1b\[[\d;]*[A-Za-z]|\r/).filter((line) => line !== '');
    expect(rows.length).to.be.greaterThan(2);
    for (const row of rows) expect(stringWidth(row), row).to.be.at.most(49);
    const row0 = rows.find((row) => row.includes('#0'))!;
    expect(row0).to.match(/^▸ #0 {2}検索ツール +running .*…$/);
  });
});
