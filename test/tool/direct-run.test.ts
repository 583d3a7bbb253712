import { expect } from 'chai';
import { map, NEVER, Observable, of, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { registerDirectRun } from '../../lib/call-consumer.js';
import { runDirect } from '../../lib/direct-run.js';
import type { Tool, ToolContext } from '../../lib/contract.js';
import { rawTool } from '../../lib/raw-tool.js';
import { tool } from '../../lib/tool.js';
import { executeBatch } from '../../operators/execute-batch.js';
import type { ExecutionEvent, Job } from '../../operators/job.js';

/** An event as compared: errors by class, code and message. */
function shown(event: ExecutionEvent): unknown {
  if (event.final && event.error !== undefined) {
    const { error, ...rest } = event;
    const code = (error as { code?: unknown }).code;
    return { ...rest, error: `${error.name} ${String(code)}: ${error.message}` };
  }
  return event;
}

/** The batch's events, in order, once it completes. */
function eventsOf(jobs: Job[], options: { scheduler?: SchedulerLike; timeout?: number } = {}) {
  return new Promise<unknown[]>((resolve, reject) => {
    const events: unknown[] = [];
    executeBatch(jobs, { maxParallel: 3, ...options }).subscribe({
      next: (event) => events.push(shown(event)),
      error: reject,
      complete: () => resolve(events),
    });
  });
}

/** Runs `make()`'s jobs through the direct run and through `execute`'s Observable. */
async function bothWays(make: () => Job[]): Promise<{ direct: unknown[]; subscribed: unknown[] }> {
  try {
    registerDirectRun(runDirect);
    const direct = await eventsOf(make());
    registerDirectRun(undefined);
    const subscribed = await eventsOf(make());
    return { direct, subscribed };
  } finally {
    registerDirectRun(runDirect);
  }
}

const text = z.object({ text: z.string() });

/** One typed tool per shape a function's outcome can take. */
function shapes(seen: string[]): Tool[] {
  const typed = (
    name: string,
    execute: (args: { text: string }, context: ToolContext) => unknown,
  ) => tool({ name, description: name, parameters: text, execute });
  return [
    typed('value', ({ text }) => text.toUpperCase()),
    typed('object', ({ text }) => ({ text, length: text.length })),
    typed('undefined', () => undefined),
    typed('progress then value', ({ text }, context) => {
      context.progress('working');
      context.progress({ progress: 1, total: 2, message: 'half' });
      return text;
    }),
    typed('throws', () => {
      throw new RangeError('out of range');
    }),
    typed('throws a string', () => {
      throw 'not an Error';
    }),
    typed('promise', async ({ text }) => `async ${text}`),
    typed('rejects', () => Promise.reject(new Error('rejected'))),
    typed('generator', async function* ({ text }) {
      yield 'step 1';
      yield 'step 2';
      return `done ${text}`;
    }),
    typed('observable', ({ text }) => of('a', 'b', text)),
    typed('empty observable', () => new Observable<string>((s) => s.complete())),
    typed('progress after the final is dropped', ({ text }, context) => {
      queueMicrotask(() => {
        context.progress('too late');
        seen.push(`late progress: signal aborted ${context.signal.aborted}`);
      });
      return text;
    }),
    tool({
      name: 'output schema refused',
      description: '',
      parameters: text,
      outputSchema: z.object({ count: z.number() }),
      execute: () => ({ count: 'three' }) as unknown as { count: number },
    }),
    rawTool({
      name: 'raw result',
      description: '',
      execute: () => ({ output: 'raw', details: 1 }),
    }),
    rawTool({ name: 'raw text', description: '', execute: () => 'plain' as never }),
  ];
}

describe('the direct run of tool() and rawTool() functions (lib/direct-run.ts)', () => {
  it('gives the events of subscribing execute, for every shape of outcome', async () => {
    const make = () => {
      const seen: string[] = [];
      return shapes(seen).flatMap((t, i) => [
        { tool: t, call: { id: `ok${i}`, args: '{"text":"hi"}' } },
        // Refused arguments: the function never runs, the message is the same.
        { tool: t, call: { id: `bad${i}`, args: '{"text":1}' } },
      ]);
    };
    const { direct, subscribed } = await bothWays(make);
    expect(direct).to.deep.equal(subscribed);
    // The comparison covers what matters: results, progress, each kind of failure.
    const finals = direct.filter((e) => (e as ExecutionEvent).final) as ExecutionEvent[];
    expect(finals).to.have.length(shapes([]).length * 2);
    expect(JSON.stringify(direct)).to.include('"output":"HI"');
    expect(JSON.stringify(direct)).to.include('step 2');
    expect(JSON.stringify(direct)).to.include('RangeError');
    expect(JSON.stringify(direct)).to.include('does not match its outputSchema');
    expect(JSON.stringify(direct)).not.to.include('too late');
  });

  it('runs the function with the call’s own context, so its signal says why it was cancelled', () => {
    const reasons: string[] = [];
    const slow = tool({
      name: 'slow',
      description: '',
      execute: (_args, context) => {
        context.signal.addEventListener('abort', () => reasons.push(context.signal.reason.name));
        return NEVER;
      },
    });
    for (const direct of [true, false]) {
      registerDirectRun(direct ? runDirect : undefined);
      try {
        new TestScheduler((a, e) => {
          expect(a).to.deep.equal(e);
        }).run(({ expectObservable }) => {
          const jobs = [{ tool: slow, call: { id: 'c', args: '' } }];
          const finals = executeBatch(jobs, { timeout: 5 }).pipe(
            map((e) => e.final && e.error?.name),
          );
          expectObservable(finals).toBe('-----(a|)', { a: 'TimeoutError' });
        });
      } finally {
        registerDirectRun(runDirect);
      }
    }
    // Both ways, the function's signal carries the engine's TimeoutError.
    expect(reasons).to.deep.equal(['TimeoutError', 'TimeoutError']);
  });

  it('leaves a tool whose execute was replaced to its execute', async () => {
    const typed = tool({ name: 'echo', description: '', parameters: text, execute: (a) => a.text });
    const replaced: Tool = {
      ...typed,
      execute: (call, context) =>
        new Observable((s) => {
          s.next({ final: false, result: { output: 'through execute' } });
          return typed.execute(call, context).subscribe(s);
        }),
    };
    const copy: Tool = { ...typed, name: 'copy' };
    registerDirectRun(runDirect);
    const events = await eventsOf([
      { tool: replaced, call: { id: 'r', args: '{"text":"x"}' } },
      { tool: copy, call: { id: 'c', args: '{"text":"y"}' } },
    ]);
    expect(events).to.deep.equal([
      { index: 0, callId: 'r', final: false, result: { output: 'through execute' } },
      { index: 0, callId: 'r', final: true, result: { output: 'x' } },
      { index: 1, callId: 'c', final: true, result: { output: 'y' } },
    ]);
  });

  it('cancels a followed generator, Promise or Observable as execute does, when the batch is unsubscribed', async () => {
    const runBoth = async (direct: boolean): Promise<string[]> => {
      registerDirectRun(direct ? runDirect : undefined);
      const seen: string[] = [];
      const watch = (name: string, context: ToolContext) =>
        context.signal.addEventListener('abort', () =>
          seen.push(`${name} aborted: ${context.signal.reason.name}`),
        );
      const tools = [
        tool({
          name: 'generator',
          description: '',
          async *execute(_args, context) {
            watch('generator', context);
            yield 'first';
            // Suspended in an await, not a yield: its finally blocks could not run until it settles.
            await new Promise(() => undefined);
          },
        }),
        tool({
          name: 'promise',
          description: '',
          execute: (_args, context) => {
            watch('promise', context);
            return new Promise<string>(() => undefined);
          },
        }),
        tool({
          name: 'observable',
          description: '',
          execute: (_args, context) => {
            watch('observable', context);
            return new Observable<string>((s) => {
              s.next('first');
              return () => seen.push('observable torn down');
            });
          },
        }),
      ];
      const jobs = tools.map((t, i) => ({ tool: t, call: { id: `c${i}`, args: '' } }));
      await new Promise<void>((resolve) => {
        let progress = 0;
        const subscription = executeBatch(jobs).subscribe((event) => {
          if (!event.final && ++progress === 2) {
            // Both progress events are in: every call is running; the batch is dropped.
            queueMicrotask(() => {
              subscription.unsubscribe();
              resolve();
            });
          }
        });
      });
      await new Promise((resolve) => setImmediate(resolve));
      return seen.sort();
    };
    try {
      const direct = await runBoth(true);
      const subscribed = await runBoth(false);
      expect(direct).to.deep.equal(subscribed);
      expect(direct).to.deep.equal([
        'generator aborted: CancelledError',
        'observable aborted: CancelledError',
        'observable torn down',
        'promise aborted: CancelledError',
      ]);
    } finally {
      registerDirectRun(runDirect);
    }
  });
});
