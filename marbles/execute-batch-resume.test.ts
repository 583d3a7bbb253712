import { expect } from 'chai';
import { CancelledError, NotReplayedError } from '../lib/errors.js';
import { executeBatch } from '../operators/execute-batch.js';
import type { Job } from '../operators/job.js';
import type { Tool } from '../lib/contract.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { job, testScheduler, toolEvents } from './support.js';

const unsafe = (id: string, tool: string) =>
  new NotReplayedError(id, tool, `tool "${tool}" is not safe to run twice`);

describe('executeBatch: resume', () => {
  it('keeps finished jobs, refuses unsafe ones at once, and replays the rest in their chains', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents); // fs, safe: finished before
      const b = cold('  -----(f|)', toolEvents); // fs, safe: started, replayed
      const bSubs = '   ^----!';
      const c = cold('  -(f|)', toolEvents); // fs, unsafe: started, refused
      const d = cold('       -(f|)', toolEvents); // fs, unsafe: never started, runs after b
      const dSubs = '   -----^!';
      const e = cold('  ------(f|)', toolEvents); // idempotent: started, replayed under its key
      const eSubs = '   ^-----!';
      const f = cold('  -(f|)', toolEvents); // shell: failed before, keeps its error
      const expected = '(acf)b(ed|)';
      const jobs = [
        job(stubTool('a', a, { resource: 'fs', replay: 'safe' }), 'a'),
        job(stubTool('b', b, { resource: 'fs', replay: 'safe' }), 'b'),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
        job(stubTool('d', d, { resource: 'fs' }), 'd'),
        job(stubTool('e', e, { replay: 'idempotent' }), 'e'),
        job(stubTool('f', f, { resource: 'shell' }), 'f'),
      ];
      const failed = new Error('disk full');
      const resume = {
        started: ['a', 'b', 'c', 'e', 'f'].map((callId) => ({ callId })),
        ended: [
          finalEvent(0, 'a', 'before'),
          { callId: 'f', final: true, error: { message: 'disk full' } },
        ],
      };
      expectObservable(executeBatch(jobs, { resume })).toBe(expected, {
        a: finalEvent(0, 'a', 'before'),
        c: errorEvent(2, 'c', unsafe('c', 'c')),
        f: errorEvent(5, 'f', failed),
        b: finalEvent(1, 'b', 'done'),
        d: finalEvent(3, 'd', 'done'),
        e: finalEvent(4, 'e', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe([]);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
      expectSubscriptions(e.subscriptions).toBe(eSubs);
      expectSubscriptions(f.subscriptions).toBe([]);
    });
  });

  it('runs an interrupted call whose tool picks up from its records, handing them back', () => {
    const seen = new Map<string, unknown>();
    const task = { ns: 'remote:task', data: '{"taskId":"t1"}' };
    const other = { ns: 'shell:process-group', data: '{"pgid":7}' };
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const p = cold('  --(f|)', toolEvents); // unsafe, picks up: runs with its records
      const pSubs = '   ^-!';
      const q = cold('  -(f|)', toolEvents); // unsafe, records it cannot pick up from: refused
      const r = cold('  ---(f|)', toolEvents); // safe: runs again, as without records
      const rSubs = '   ^--!';
      const picking = (name: string, events: typeof p): Tool => ({
        name,
        description: name,
        execute: (call) => {
          seen.set(name, call.resumed);
          return events;
        },
        resumes: (records) => records.some((record) => record.ns === 'remote:task'),
      });
      const jobs = [
        job(picking('p', p), 'p'),
        job(picking('q', q), 'q'),
        job(stubTool('r', r, { replay: 'safe' }), 'r'),
      ];
      const resume = {
        started: ['p', 'q', 'r'].map((callId) => ({ callId })),
        recorded: [
          { callId: 'p', record: task },
          { callId: 'q', record: other },
          { callId: 'r', record: other },
        ],
      };
      expectObservable(executeBatch(jobs, { resume })).toBe('q-p(r|)', {
        q: errorEvent(1, 'q', unsafe('q', 'q')),
        p: finalEvent(0, 'p', 'done'),
        r: finalEvent(2, 'r', 'done'),
      });
      expectSubscriptions(p.subscriptions).toBe(pSubs);
      expectSubscriptions(q.subscriptions).toBe([]);
      expectSubscriptions(r.subscriptions).toBe(rSubs);
    });
    expect(seen.get('p')).to.deep.equal([task]);
    expect(seen.has('q')).to.equal(false);
  });

  it('refuses a recorded entry that is not a record, in one line', () => {
    expect(() =>
      executeBatch([], { resume: { recorded: [{ callId: 'x', record: { ns: 1 } as never }] } }),
    ).to.throw(TypeError, 'resume: recorded entry of call "x" needs a record with ns and data');
  });

  it('keeps a chain whose first call had finished and whose second is refused', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  -----(f|)', toolEvents);
      const bSubs = '   ^----!';
      const c = cold('  -(f|)', toolEvents);
      const d = cold('       -(f|)', toolEvents);
      const dSubs = '   -----^!';
      const expected = '(ac)-b(d|)';
      const fs = { resource: 'fs' };
      const jobs = [
        job(stubTool('a', a, fs), 'a'),
        job(stubTool('b', b, { ...fs, replay: 'safe' }), 'b'),
        job(stubTool('c', c, fs), 'c'),
        job(stubTool('d', d, fs), 'd'),
      ];
      const resume = {
        started: ['a', 'b', 'c'].map((callId) => ({ callId })),
        ended: [finalEvent(0, 'a', 'before')],
      };
      expectObservable(executeBatch(jobs, { resume })).toBe(expected, {
        a: finalEvent(0, 'a', 'before'),
        c: errorEvent(2, 'c', unsafe('c', 'c')),
        b: finalEvent(1, 'b', 'done'),
        d: finalEvent(3, 'd', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe([]);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
    });
  });

  it('keeps a serial batch serial when the sequential tool that made it so had finished', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const s = cold('  -(f|)', toolEvents);
      const x = cold('  --(f|)', toolEvents);
      const xSubs = '   ^-!';
      const y = cold('    --(f|)', toolEvents);
      const ySubs = '   --^-!';
      const expected = 's-x-(y|)';
      const jobs = [
        job(stubTool('s', s, { sequential: true }), 's'),
        job(stubTool('x', x, { replay: 'safe' }), 'x'),
        job(stubTool('y', y), 'y'),
      ];
      const resume = { ended: [finalEvent(0, 's', 'before')], started: [{ callId: 's' }] };
      expectObservable(executeBatch(jobs, { resume })).toBe(expected, {
        s: finalEvent(0, 's', 'before'),
        x: finalEvent(1, 'x', 'done'),
        y: finalEvent(2, 'y', 'done'),
      });
      expectSubscriptions(s.subscriptions).toBe([]);
      expectSubscriptions(x.subscriptions).toBe(xSubs);
      expectSubscriptions(y.subscriptions).toBe(ySubs);
    });
  });

  it('takes every unfinished call as started when the log does not say which had started', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  -(f|)', toolEvents);
      const bSubs = '   ^!';
      const expected = 'a(b|)';
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b, { replay: 'safe' }), 'b')];
      expectObservable(executeBatch(jobs, { resume: {} })).toBe(expected, {
        a: errorEvent(0, 'a', unsafe('a', 'a')),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('treats a call the earlier run cancelled as unfinished', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  -(f|)', toolEvents);
      const bSubs = '   ^!';
      const expected = 'a(b|)';
      const jobs = [job(stubTool('a', a), 'a'), job(stubTool('b', b), 'b')];
      const cancelled = new CancelledError();
      const resume = {
        started: [{ callId: 'a' }],
        ended: [errorEvent(0, 'a', cancelled), errorEvent(1, 'b', cancelled)],
      };
      expectObservable(executeBatch(jobs, { resume })).toBe(expected, {
        a: errorEvent(0, 'a', unsafe('a', 'a')),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
    });
  });

  it('gives onStart and the cancelled finals of an aborted resume their batch indices', () => {
    const started: number[] = [];
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const controller = new AbortController();
      const a = cold('  -(f|)', toolEvents);
      const b = cold('  -----(f|)', toolEvents);
      const bSubs = '   ^-!';
      const c = cold('  -(f|)', toolEvents);
      const expected = 'a-(bc|)';
      const jobs: Job[] = [
        job(stubTool('a', a), 'a'),
        job(stubTool('b', b, { resource: 'fs' }), 'b'),
        job(stubTool('c', c, { resource: 'fs' }), 'c'),
      ];
      cold('            --x').subscribe(() => controller.abort());
      const cancelled = new CancelledError();
      const resume = { started: [{ callId: 'a' }], ended: [finalEvent(0, 'a', 'before')] };
      const onStart = (_job: Job, index: number) => void started.push(index);
      expectObservable(executeBatch(jobs, { resume, onStart, signal: controller.signal })).toBe(
        expected,
        {
          a: finalEvent(0, 'a', 'before'),
          b: errorEvent(1, 'b', cancelled),
          c: errorEvent(2, 'c', cancelled),
        },
      );
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe([]);
    });
    expect(started).to.deep.equal([1]);
  });
});
