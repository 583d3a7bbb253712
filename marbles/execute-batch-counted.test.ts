import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import { NotApprovedError } from '../lib/errors.js';
import type { JsonArguments, Tool, ToolCall, ToolEvent } from '../lib/contract.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Approval, Job } from '../operators/job.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

const sandbox = { key: 'sandbox', capacity: 2 };

/** A stub tool whose calls each run the cold observable of their id. */
function byId(
  name: string,
  runs: Record<string, ColdObservable<ToolEvent>>,
  properties: Partial<Tool> = {},
): Tool {
  return stubTool(name, (c: ToolCall) => runs[c.id]!, properties);
}

describe('executeBatch: counted resources', () => {
  it('runs at most `capacity` calls of a counted resource at once, starting them in job order', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('  ---(f|)', toolEvents); // sandbox
      const aSubs = '   ^--!';
      const b = cold('  -(f|)', toolEvents); // sandbox
      const bSubs = '   ^!';
      const c = cold('   --(f|)', toolEvents); // sandbox: takes b's place
      const cSubs = '   -^-!';
      const d = cold('     -(f|)', toolEvents); // sandbox: takes a's place
      const dSubs = '   ---^!';
      const e = cold('     --(f|)', toolEvents); // sandbox: takes c's place
      const eSubs = '   ---^-!';
      const f = cold('  ----(f|)', toolEvents); // no resource: alongside
      const fSubs = '   ^---!';
      const run = byId('run', { a, b, c, d, e }, { resource: sandbox });
      const jobs = [
        job(run, 'a'),
        job(run, 'b'),
        job(run, 'c'),
        job(run, 'd'),
        job(run, 'e'),
        job(stubTool('f', f), 'f'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
      expectSubscriptions(e.subscriptions).toBe(eSubs);
      expectSubscriptions(f.subscriptions).toBe(fSubs);
    });
  });

  it('emits the finals in completion order, each call its one final', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold(' ---(f|)', toolEvents); // starts at 1, in b's place
      const run = byId('run', { a, b, c }, { resource: sandbox });
      const jobs = [job(run, 'a'), job(run, 'b'), job(run, 'c')];
      expectObservable(executeBatch(jobs)).toBe('-ba-(c|)', doneEvents('abc'));
    });
  });

  it('shares the places between different tools naming the key, plain or counted', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('  ---(f|)', toolEvents); // counted sandbox, 2
      const aSubs = '   ^--!';
      const b = cold('  --(f|)', toolEvents); // plain "sandbox": the resource is open at 2
      const bSubs = '   ^-!';
      const c = cold('    -(f|)', toolEvents); // counted: waits for a place
      const cSubs = '   --^!';
      const jobs = [
        job(stubTool('a', a, { resource: sandbox }), 'a'),
        job(stubTool('b', b, { resource: 'sandbox' }), 'b'),
        job(stubTool('c', c, { resource: sandbox }), 'c'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it('takes its capacity from the call that finds the resource idle', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents); // plain "sandbox" first: capacity 1
      const aSubs = '   ^-!';
      const b = cold('    --(f|)', toolEvents); // counted, 2: waits, the resource holds 1
      const bSubs = '   --^-!';
      const c = cold('    --(f|)', toolEvents); // counted: still one at a time
      const cSubs = '   ----^-!';
      const jobs = [
        job(stubTool('a', a, { resource: 'sandbox' }), 'a'),
        job(stubTool('b', b, { resource: sandbox }), 'b'),
        job(stubTool('c', c, { resource: sandbox }), 'c'),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });

  it("keeps the batch's bound: a freed slot goes to the earliest job whose turn has come", () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents); // sandbox
      const aSubs = '   ^-!';
      const b = cold('  ----(f|)', toolEvents); // sandbox
      const bSubs = '   ^---!';
      const c = cold('    -(f|)', toolEvents); // sandbox: its turn comes at 2, with a's slot
      const cSubs = '   --^!';
      const d = cold('     -(f|)', toolEvents); // no resource: free since 0, later than c
      const dSubs = '   ---^!';
      const run = byId('run', { a, b, c }, { resource: { key: 'sandbox', capacity: 4 } });
      const jobs = [job(run, 'a'), job(run, 'b'), job(run, 'c'), job(stubTool('d', d), 'd')];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
      expectSubscriptions(d.subscriptions).toBe(dSubs);
    });
  });

  it("lets the application's capacities count a plain resource, and win over a tool's", () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('  --(f|)', toolEvents); // "api", plain: 3 at once
      const b = cold('  --(f|)', toolEvents);
      const c = cold('  --(f|)', toolEvents);
      const d = cold('    --(f|)', toolEvents);
      const e = cold('  -(f|)', toolEvents); // sandbox says 2; the application says 1
      const g = cold('   -(f|)', toolEvents);
      const api = byId('api', { a, b, c, d }, { resource: 'api' });
      const run = byId('run', { e, g }, { resource: sandbox });
      const jobs = [
        job(api, 'a'),
        job(api, 'b'),
        job(api, 'c'),
        job(api, 'd'),
        job(run, 'e'),
        job(run, 'g'),
      ];
      executeBatch(jobs, { capacities: { api: 3, sandbox: 1 } }).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('^-!');
      expectSubscriptions(c.subscriptions).toBe('^-!');
      expectSubscriptions(d.subscriptions).toBe('--^-!');
      expectSubscriptions(e.subscriptions).toBe('^!');
      expectSubscriptions(g.subscriptions).toBe('-^!');
    });
  });

  it('bounds a counted resource of capacity Infinity by maxParallel alone', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const runs = { a: cold('-(f|)', toolEvents), b: cold('-(f|)', toolEvents) };
      const c = cold('-(f|)', toolEvents);
      const run = byId('run', { ...runs, c }, { resource: { key: 'cache', capacity: Infinity } });
      executeBatch([job(run, 'a'), job(run, 'b'), job(run, 'c')], { maxParallel: 2 }).subscribe();
      expectSubscriptions(runs.a.subscriptions).toBe('^!');
      expectSubscriptions(runs.b.subscriptions).toBe('^!');
      expectSubscriptions(c.subscriptions).toBe('-^!');
    });
  });

  it('ignores capacities in a serial batch: one call at a time in job order', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const run = byId('run', { a, b }, { resource: sandbox });
      executeBatch([job(run, 'a'), job(run, 'b')], {
        sequential: true,
        capacities: { sandbox: 4 },
      }).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^!');
      expectSubscriptions(b.subscriptions).toBe('-^!');
    });
  });

  it('names a counted resource per call from the arguments', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents); // host x, 2 at once
      const b = cold('--(f|)', toolEvents); // host x
      const c = cold('  -(f|)', toolEvents); // host x: waits for a place
      const d = cold('-(f|)', toolEvents); // host y, 1 at once
      const e = cold(' -(f|)', toolEvents); // host y: waits for d
      const fetch = byId(
        'fetch',
        { a, b, c, d, e },
        {
          resource: (args: JsonArguments) => ({
            key: `host:${String(args.host)}`,
            capacity: args.host === 'x' ? 2 : 1,
          }),
        },
      );
      const on = (id: string, host: string): Job => ({
        tool: fetch,
        call: { id, args: JSON.stringify({ host }) },
      });
      executeBatch([
        on('a', 'x'),
        on('b', 'x'),
        on('c', 'x'),
        on('d', 'y'),
        on('e', 'y'),
      ]).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('^-!');
      expectSubscriptions(c.subscriptions).toBe('--^!');
      expectSubscriptions(d.subscriptions).toBe('^!');
      expectSubscriptions(e.subscriptions).toBe('-^!');
    });
  });

  it('holds a place for a call waiting for its approval, and passes it on when refused', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('----(f|)', toolEvents); // sandbox
      const b = cold('-(f|)', toolEvents); // sandbox: approved at once
      const c = cold('   -(f|)', toolEvents); // sandbox: the second place comes free at 2
      const no = cold<Approval>('--n|', { n: false });
      const run = byId('run', { a, b, c }, { resource: sandbox });
      const approve = (asked: Job) =>
        asked.call.id === 'a' ? true : asked.call.id === 'b' ? no : true;
      const jobs = [job(run, 'a'), job(run, 'b'), job(run, 'c')];
      expectObservable(executeBatch(jobs, { approve })).toBe('--bc(a|)', {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', new NotApprovedError('b')),
        c: finalEvent(2, 'c', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe('^---!');
      expectSubscriptions(b.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe('--^!');
    });
  });

  it('passes a waiting call its own signal ended by, and the next takes the place', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('---(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents); // aborted while it waits
      const d = cold('  -(f|)', toolEvents);
      const run = byId('run', { a, b, c, d }, { resource: sandbox });
      const stop = new AbortController();
      const jobs = [
        job(run, 'a'),
        job(run, 'b'),
        { ...job(run, 'c'), signal: stop.signal },
        job(run, 'd'),
      ];
      executeBatch(jobs).subscribe();
      stop.abort();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('^--!');
      expectSubscriptions(c.subscriptions).toBe([]);
      expectSubscriptions(d.subscriptions).toBe('--^!');
    });
  });
});

describe('executeCalls: counted resources', () => {
  it('lets arriving calls of a counted resource run up to its capacity, in arrival order', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  ---(f|)', toolEvents);
      const aSubs = '   ^--!';
      const b = cold('   ---(f|)', toolEvents);
      const bSubs = '   -^--!';
      const c = cold('     -(f|)', toolEvents); // arrives at 2: both places taken until 3
      const cSubs = '   ---^!';
      const run = byId('run', { a, b, c }, { resource: sandbox });
      const source = cold('abc|', { a: job(run, 'a'), b: job(run, 'b'), c: job(run, 'c') });
      expectObservable(source.pipe(executeCalls())).toBe('---a(bc|)', doneEvents('abc'));
      expectSubscriptions(a.subscriptions).toBe(aSubs);
      expectSubscriptions(b.subscriptions).toBe(bSubs);
      expectSubscriptions(c.subscriptions).toBe(cSubs);
    });
  });
});

describe('counted resources: capacities that cannot be', () => {
  const bad = [0, -1, 1.5, NaN, -Infinity, '2' as unknown as number];

  it('fails the batch at subscription for a bad application capacity, naming the key', () => {
    for (const capacity of bad)
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const a = cold('-(f|)', toolEvents);
        const error = new RangeError(
          `capacities["sandbox"]: capacity must be an integer >= 1 or Infinity, got ${
            typeof capacity === 'string'
              ? '"2"'
              : Number.isFinite(capacity)
                ? String(capacity)
                : 'an out-of-range number'
          }`,
        );
        const batch = executeBatch([job(stubTool('a', a), 'a')], {
          capacities: { sandbox: capacity },
        });
        expectObservable(batch).toBe('#', undefined, error);
        expectSubscriptions(a.subscriptions).toBe([]);
      });
  });

  it('fails only the call whose tool states a bad capacity, before it takes any turn', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const broken: Tool = stubTool('broken', a, { resource: { key: 'sandbox', capacity: 0 } });
      const fine = stubTool('fine', b, { resource: 'sandbox' });
      expectObservable(executeBatch([job(broken, 'a'), job(fine, 'b')])).toBe('a(b|)', {
        a: errorEvent(
          0,
          'a',
          new RangeError(
            'tool "broken": resource "sandbox": capacity must be an integer >= 1 or Infinity, got 0',
          ),
        ),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe('^!');
    });
  });

  it('fails a call whose resource function names neither a string nor { key, capacity }', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('-(f|)', toolEvents);
      const odd = stubTool('odd', a, { resource: () => ({ capacity: 2 }) as never });
      expectObservable(executeBatch([job(odd, 'a')])).toBe('(a|)', {
        a: errorEvent(
          0,
          'a',
          new TypeError('tool "odd": resource returned object, not a string or { key, capacity }'),
        ),
      });
    });
  });
});
