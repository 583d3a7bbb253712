import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import { filter } from 'rxjs';
import { z } from 'zod';
import type { JsonArguments, Tool, ToolCall, ToolEvent } from '../lib/contract.js';
import { ValidationError } from '../lib/errors.js';
import { tool } from '../lib/tool.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { Job } from '../operators/job.js';
import { errorEvent, finalEvent, stubTool } from '../testing/index.js';
import { doneEvents, job, testScheduler, toolEvents } from './support.js';

/** A job of `tool` whose call `id` has the arguments `args` (an object as JSON, or raw text). */
function call(tool: Tool, id: string, args: object | string): Job {
  return { tool, call: { id, args: typeof args === 'string' ? args : JSON.stringify(args) } };
}

/** A stub `write` tool, resource `file:<path>`, each call running the cold observable of its id. */
function writeTool(runs: Record<string, ColdObservable<ToolEvent>>): Tool {
  return stubTool('write', (c: ToolCall) => runs[c.id]!, {
    resource: (args: JsonArguments) => `file:${String(args.path)}`,
  });
}

describe('executeBatch: resources named from the arguments', () => {
  it('runs two writes to one file in model order, and writes to other files alongside', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents); // a.txt
      const b = cold('-(f|)', toolEvents); // b.txt
      const c = cold('-(f|)', toolEvents); // a.txt, after a
      const write = writeTool({ a, b, c });
      const jobs = [
        call(write, 'a', { path: 'a.txt' }),
        call(write, 'b', { path: 'b.txt' }),
        call(write, 'c', { path: 'a.txt' }),
      ];
      expectObservable(executeBatch(jobs)).toBe('-b-a(c|)', doneEvents('abc'));
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('^!');
      expectSubscriptions(c.subscriptions).toBe('---^!');
    });
  });

  it("names the resource from a zod tool's decoded arguments (defaults and transforms applied)", () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const runs: Record<string, ColdObservable<string>> = {
        upper: cold('--(x|)'),
        lower: cold('-(x|)'),
        other: cold('-(x|)'),
        fallback: cold('-(x|)'),
        again: cold('-(x|)'),
      };
      const write = tool({
        name: 'write',
        description: 'writes a file',
        parameters: z.object({
          id: z.string(),
          path: z
            .string()
            .default('notes.txt')
            .transform((p) => p.toLowerCase()),
        }),
        resource: (args) => `file:${args.path}`,
        execute: (args) => runs[args.id]!,
      });
      const jobs = [
        call(write, 'c1', { id: 'upper', path: 'A.TXT' }),
        call(write, 'c2', { id: 'lower', path: 'a.txt' }), // the same file once decoded
        call(write, 'c3', { id: 'other', path: 'b.txt' }),
        call(write, 'c4', { id: 'fallback' }), // notes.txt, the default
        call(write, 'c5', { id: 'again', path: 'NOTES.txt' }),
      ];
      executeBatch(jobs).subscribe();
      expectSubscriptions(runs.upper!.subscriptions).toBe('^-!');
      expectSubscriptions(runs.lower!.subscriptions).toBe('--^!');
      expectSubscriptions(runs.other!.subscriptions).toBe('^!');
      expectSubscriptions(runs.fallback!.subscriptions).toBe('^!');
      expectSubscriptions(runs.again!.subscriptions).toBe('-^!');
    });
  });

  it('fails a call whose arguments do not parse with its ValidationError, at once and without a turn', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('---(f|)', toolEvents);
      const bad = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const write = writeTool({ a, bad, c });
      const jobs = [
        call(write, 'a', { path: 'a.txt' }),
        call(write, 'bad', '{"path": "a.txt"'),
        call(write, 'c', { path: 'a.txt' }),
      ];
      const error = new ValidationError(
        '',
        "not valid JSON: expected ',' or '}' after property value at position 16",
      );
      expectObservable(executeBatch(jobs)).toBe('b--a(c|)', {
        ...doneEvents('a-c'),
        b: errorEvent(1, 'bad', error),
      });
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(bad.subscriptions).toBe([]);
      expectSubscriptions(c.subscriptions).toBe('---^!');
    });
  });

  it("fails a call its zod schema refuses with the tool's own message, and blocks nobody", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('--(x|)');
      const third = cold('-(x|)');
      const runs: Record<string, ColdObservable<string>> = { first, third };
      const write = tool({
        name: 'write',
        description: 'writes a file',
        parameters: z.object({ id: z.string(), path: z.string() }),
        resource: (args) => `file:${args.path}`,
        execute: (args) => runs[args.id]!,
      });
      const jobs = [
        call(write, 'c1', { id: 'first', path: 'a.txt' }),
        call(write, 'c2', { id: 'second', path: 7 }),
        call(write, 'c3', { id: 'third', path: 'a.txt' }),
      ];
      const error = new ValidationError('path', 'expected string, got 7');
      const finals = executeBatch(jobs, { maxParallel: 2 }).pipe(filter((event) => event.final));
      expectObservable(finals).toBe('e-a(c|)', {
        e: errorEvent(1, 'c2', error),
        a: finalEvent(0, 'c1', 'x'),
        c: finalEvent(2, 'c3', 'x'),
      });
      expectSubscriptions(first.subscriptions).toBe('^-!');
      expectSubscriptions(third.subscriptions).toBe('--^!');
    });
  });

  it('fails a call whose resource function throws with that error, without running the tool', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const refused = new Error('no path outside the workspace');
      const write = stubTool('write', (c: ToolCall) => (c.id === 'a' ? a : b), {
        resource: (args: JsonArguments) => {
          if (String(args.path).startsWith('/')) throw refused;
          return `file:${String(args.path)}`;
        },
      });
      const jobs = [call(write, 'a', { path: '/etc/passwd' }), call(write, 'b', { path: 'x' })];
      expectObservable(executeBatch(jobs)).toBe('a(b|)', {
        a: errorEvent(0, 'a', refused),
        b: finalEvent(1, 'b', 'done'),
      });
      expectSubscriptions(a.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe('^!');
    });
  });

  it('runs alongside everything a call whose function names no resource ("")', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const write = stubTool('write', (call: ToolCall) => ({ a, b, c })[call.id]!, {
        resource: (args: JsonArguments) => (args.path === undefined ? '' : `file:${args.path}`),
      });
      executeBatch([call(write, 'a', {}), call(write, 'b', {}), call(write, 'c', '')]).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('^!');
      expectSubscriptions(c.subscriptions).toBe('^!');
    });
  });

  it('shares a chain with a tool whose fixed resource is the same name', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const w1 = cold('--(f|)', toolEvents); // file:a.txt
      const r = cold('-(f|)', toolEvents); // fixed file:a.txt, after w1
      const w2 = cold('-(f|)', toolEvents); // file:b.txt
      const w3 = cold('-(f|)', toolEvents); // file:a.txt, after r
      const write = writeTool({ w1, w2, w3 });
      const reindex = stubTool('reindex', r, { resource: 'file:a.txt' });
      const jobs = [
        call(write, 'w1', { path: 'a.txt' }),
        job(reindex, 'r'),
        call(write, 'w2', { path: 'b.txt' }),
        call(write, 'w3', { path: 'a.txt' }),
      ];
      expectObservable(executeBatch(jobs)).toBe('-car(d|)', {
        a: finalEvent(0, 'w1', 'done'),
        r: finalEvent(1, 'r', 'done'),
        c: finalEvent(2, 'w2', 'done'),
        d: finalEvent(3, 'w3', 'done'),
      });
      expectSubscriptions(w1.subscriptions).toBe('^-!');
      expectSubscriptions(r.subscriptions).toBe('--^!');
      expectSubscriptions(w2.subscriptions).toBe('^!');
      expectSubscriptions(w3.subscriptions).toBe('---^!');
    });
  });

  it('ignores resources in a batch with a sequential tool: one call at a time, in job order', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('-(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const s = cold('-(f|)', toolEvents);
      const write = writeTool({ a, b });
      const shell = stubTool('shell', s, { sequential: true });
      executeBatch([
        call(write, 'a', { path: 'a.txt' }),
        call(write, 'b', { path: 'b.txt' }),
        job(shell, 's'),
      ]).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^!');
      expectSubscriptions(b.subscriptions).toBe('-^!');
      expectSubscriptions(s.subscriptions).toBe('--^!');
    });
  });

  it('counts the calls of every file against the one bound, earliest job first', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents); // a.txt
      const b = cold('---(f|)', toolEvents); // b.txt
      const c = cold('-(f|)', toolEvents); // a.txt, after a
      const d = cold('-(f|)', toolEvents); // c.txt: waits for a slot
      const write = writeTool({ a, b, c, d });
      const jobs = [
        call(write, 'a', { path: 'a.txt' }),
        call(write, 'b', { path: 'b.txt' }),
        call(write, 'c', { path: 'a.txt' }),
        call(write, 'd', { path: 'c.txt' }),
      ];
      executeBatch(jobs, { maxParallel: 2 }).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('^--!');
      expectSubscriptions(c.subscriptions).toBe('--^!');
      expectSubscriptions(d.subscriptions).toBe('---^!');
    });
  });

  it('asks an undecodable call its approval like any call, then fails it without a turn', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('----(f|)', toolEvents);
      const c = cold('-(f|)', toolEvents);
      const write = writeTool({ a, c });
      const yes = cold<boolean>('--y|', { y: true });
      const jobs = [
        call(write, 'a', { path: 'a.txt' }),
        call(write, 'bad', '[1]'),
        call(write, 'c', { path: 'a.txt' }),
      ];
      const approve = (asked: Job) => (asked.call.id === 'bad' ? yes : true);
      expectObservable(executeBatch(jobs, { approve })).toBe('--b-a(c|)', {
        ...doneEvents('a-c'),
        b: errorEvent(1, 'bad', new ValidationError('', 'expected object, got array')),
      });
      expectSubscriptions(yes.subscriptions).toBe('^-!');
      // The file's next write goes when the first ends: the failed call held no turn of it.
      expectSubscriptions(c.subscriptions).toBe('----^!');
    });
  });
});

describe('executeCalls: resources named from the arguments', () => {
  it('chains calls of one file as they arrive, and starts a later write of it once it is free', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents); // a.txt
      const b = cold('--(f|)', toolEvents); // a.txt, arrives while a runs
      const c = cold('-(f|)', toolEvents); // b.txt
      const d = cold('-(f|)', toolEvents); // a.txt, arrives after b ended: starts at once
      const write = writeTool({ a, b, c, d });
      const source = cold('abc-----d|', {
        a: call(write, 'a', { path: 'a.txt' }),
        b: call(write, 'b', { path: 'a.txt' }),
        c: call(write, 'c', { path: 'b.txt' }),
        d: call(write, 'd', { path: 'a.txt' }),
      });
      source.pipe(executeCalls()).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('--^-!');
      expectSubscriptions(c.subscriptions).toBe('--^!');
      expectSubscriptions(d.subscriptions).toBe('--------^!');
    });
  });

  it('holds a write of any file behind a sequential call that arrived before it', () => {
    testScheduler().run(({ cold, expectSubscriptions }) => {
      const a = cold('--(f|)', toolEvents);
      const s = cold('--(f|)', toolEvents);
      const b = cold('-(f|)', toolEvents);
      const write = writeTool({ a, b });
      const source = cold('asb|', {
        a: call(write, 'a', { path: 'a.txt' }),
        s: job(stubTool('shell', s, { sequential: true }), 's'),
        b: call(write, 'b', { path: 'b.txt' }),
      });
      source.pipe(executeCalls()).subscribe();
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(s.subscriptions).toBe('--^-!');
      expectSubscriptions(b.subscriptions).toBe('----^!');
    });
  });

  it('fails an undecodable call on arrival, while the file it would name is busy', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('----(f|)', toolEvents);
      const write = writeTool({ a });
      const source = cold('ab|', {
        a: call(write, 'a', { path: 'a.txt' }),
        b: call(write, 'b', '[1]'),
      });
      expectObservable(source.pipe(executeCalls())).toBe('-b--(a|)', {
        a: finalEvent(0, 'a', 'done'),
        b: errorEvent(1, 'b', new ValidationError('', 'expected object, got array')),
      });
    });
  });
});
