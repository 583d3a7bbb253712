/**
 * The differential check of the engine against the pipeline model (marbles/pipeline-model.ts):
 * random batches, run through both in virtual time, must give the same events at the same frames
 * and the same tool subscriptions at the same frames. Shared by the test in `npm test` and the
 * long run of `npm run soak`.
 */
import fc from 'fast-check';
import {
  ignoreElements,
  map,
  merge,
  mergeMap,
  NEVER,
  Observable,
  Subject,
  take,
  tap,
  throwError,
  timer,
  type Subscription,
} from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Tool, ToolContext, ToolEvent } from '../lib/contract.js';
import type { CallContext } from '../lib/context.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../operators/job.js';
import { final, progress, stubTool } from '../testing/index.js';
import { modelBatch, modelCalls, type ModelOptions } from './pipeline-model.js';

/** How one job's tool behaves. */
export interface ToolSpec {
  /** cold: a marble; sync: final inside subscribe; held: final inside subscribe, never completes. */
  kind: 'cold' | 'sync' | 'held' | 'throws' | 'missing';
  /** For `cold`: p progress, f final, q progress after the final, # error, | completion. */
  marble: string;
  resource: '' | 'fs' | 'net';
  sequential: boolean;
}

/** One random case. */
export interface Case {
  mode: 'batch' | 'calls';
  tools: ToolSpec[];
  /** calls: the frame each job arrives at, or, with `pushAfter`, never by itself. */
  arrivals: number[];
  /** calls: job i is pushed from the consumer's handler on the final of job `pushAfter[i]`. */
  pushAfter: (number | null)[];
  sourceEnd: { how: 'complete' | 'error' | 'never'; at: number };
  maxParallel: number;
  sequential: boolean;
  timeout: number | undefined;
  onStart: { index: number; how: 'throw' | 'value' | 'then' } | undefined;
  abortAt: number | 'before' | undefined;
  unsubscribeAt: number | undefined;
  take: number | undefined;
}

/** `arbitrary` in about one case of four, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary, weight: 1 });
}

const toolSpec: fc.Arbitrary<ToolSpec> = fc.record({
  kind: fc.constantFrom('cold', 'cold', 'cold', 'cold', 'sync', 'held', 'throws', 'missing'),
  marble: fc
    .tuple(
      fc.array(fc.constantFrom('-', '-', 'p'), { maxLength: 4 }),
      fc.constantFrom('(f|)', 'f', 'f-q|', '#', '|', '', '--(f|)'),
    )
    .map(([head, end]) => head.join('') + end),
  resource: fc.constantFrom('', '', 'fs', 'net'),
  sequential: fc.nat(7).map((n) => n === 0),
});

/** Random cases; `size` bounds the jobs per batch. */
export function caseArbitrary(size = 7): fc.Arbitrary<Case> {
  return fc
    .record({
      mode: fc.constantFrom('batch', 'calls'),
      tools: fc.array(toolSpec, { maxLength: size }),
      arrivals: fc.array(fc.nat(6), { minLength: size, maxLength: size }),
      pushAfter: fc.array(fc.option(fc.nat(size - 1), { freq: 2 }), {
        minLength: size,
        maxLength: size,
      }),
      sourceEnd: fc.record({
        how: fc.constantFrom('complete', 'complete', 'error', 'never'),
        at: fc.nat(8),
      }),
      maxParallel: fc.integer({ min: 1, max: 4 }),
      sequential: fc.nat(5).map((n) => n === 0),
      timeout: sometimes(fc.integer({ min: 1, max: 6 })),
      onStart: sometimes(
        fc.record({ index: fc.nat(size - 1), how: fc.constantFrom('throw', 'value', 'then') }),
      ),
      abortAt: sometimes(fc.oneof(fc.nat(8), fc.constant('before' as const))),
      unsubscribeAt: sometimes(fc.nat(10)),
      take: sometimes(fc.integer({ min: 1, max: 6 })),
    })
    .map((c) => ({
      ...c,
      // A job is pushed only after the final of an earlier job, so every case can end.
      pushAfter: c.pushAfter.map((p, i) => (c.mode === 'calls' && p !== null && p < i ? p : null)),
    }));
}

/** What one run shows: every notification with its frame, and each job's tool subscriptions. */
export interface Trace {
  events: [number, string, unknown][];
  subscriptions: Record<string, [number, number | null, string][]>;
}

type Engine = 'engine' | 'model';

/** Runs `spec` through the engine or the model, in virtual time. */
export function trace(spec: Case, side: Engine, plantedBug = false): Trace {
  const scheduler = new TestScheduler(() => undefined);
  const result: Trace = { events: [], subscriptions: {} };
  scheduler.run(({ cold }) => {
    const now = () => scheduler.now();
    const jobs = spec.tools.map((t, i) => makeJob(t, `c${i}`, cold, now, result.subscriptions));
    const controller = spec.abortAt === undefined ? undefined : new AbortController();
    const options: ModelOptions = {
      maxParallel: spec.maxParallel,
      sequential: spec.sequential || undefined,
      timeout: spec.timeout,
      onStart: onStartOf(spec),
      ...(controller === undefined ? {} : { signal: controller.signal }),
      ...(side === 'model' ? { plantedBug } : {}),
    };
    if (spec.abortAt === 'before') controller?.abort();
    else if (spec.abortAt !== undefined)
      scheduler.schedule(() => controller?.abort(), spec.abortAt);

    let events: Observable<ExecutionEvent>;
    const pushed = new Subject<Job>();
    if (spec.mode === 'batch') {
      events = side === 'engine' ? executeBatch(jobs, options) : modelBatch(jobs, options);
    } else {
      const source = merge(arrivalsOf(spec, jobs), pushed);
      events = source.pipe(side === 'engine' ? executeCalls(options) : modelCalls(options));
      let pending = spec.pushAfter.filter((p) => p !== null).length;
      events = events.pipe(
        tap((event) => {
          if (!event.final) return;
          spec.pushAfter.forEach((after, i) => {
            if (after !== event.index || i >= jobs.length) return;
            pushed.next(jobs[i]);
            if (--pending === 0) pushed.complete();
          });
        }),
      );
      if (pending === 0) pushed.complete();
    }
    if (spec.take !== undefined) events = events.pipe(take(spec.take));
    const subscription: Subscription = events.subscribe({
      next: (event) => result.events.push([now(), 'next', event]),
      error: (err: unknown) => result.events.push([now(), 'error', err]),
      complete: () => result.events.push([now(), 'complete', undefined]),
    });
    if (spec.unsubscribeAt !== undefined)
      scheduler.schedule(() => subscription.unsubscribe(), spec.unsubscribeAt);
  });
  return result;
}

function onStartOf(spec: Case): ExecuteOptions['onStart'] {
  const on = spec.onStart;
  if (on === undefined) return undefined;
  return (_job, index) => {
    if (index !== on.index) return;
    if (on.how === 'throw') throw new Error('onStart refused');
    if (on.how === 'value') throw 'refused as a string';
    return {
      get then(): never {
        throw new Error('then getter boom');
      },
    } as unknown as Promise<void>;
  };
}

/** The source of executeCalls: each job not pushed at its arrival frame, in job order, then the end. */
function arrivalsOf(spec: Case, jobs: Job[]): Observable<Job> {
  const arrivals = jobs.flatMap((job, i) =>
    spec.pushAfter[i] === null ? [timer(spec.arrivals[i] ?? 0).pipe(map(() => job))] : [],
  );
  const { how, at } = spec.sourceEnd;
  const end =
    how === 'never'
      ? NEVER
      : how === 'error'
        ? timer(at).pipe(mergeMap(() => throwError(() => new Error('source boom'))))
        : timer(at).pipe(ignoreElements());
  return merge(...arrivals, end);
}

type Cold = (
  marble: string,
  values?: Record<string, ToolEvent>,
  error?: unknown,
) => Observable<ToolEvent>;

function makeJob(
  spec: ToolSpec,
  id: string,
  cold: (marble: string, values?: any, error?: unknown) => Observable<any>,
  now: () => number,
  log: Trace['subscriptions'],
): Job {
  const call = { id, args: '' };
  if (spec.kind === 'missing') return { tool: undefined as unknown as Tool, call };
  const entries: [number, number | null, string][] = (log[id] = []);
  const source = (): Observable<ToolEvent> => {
    switch (spec.kind) {
      case 'sync':
        return new Observable<ToolEvent>((s) => {
          s.next(final('sync'));
          s.complete();
        });
      case 'held':
        return new Observable<ToolEvent>((s) => s.next(final('held')));
      default:
        return (cold as Cold)(
          spec.marble,
          { p: progress('half'), f: final('done'), q: progress('late') },
          spec.marble.includes('#') ? new Error('tool boom') : undefined,
        );
    }
  };
  const execute = (_call: unknown, context: ToolContext): Observable<ToolEvent> => {
    if (spec.kind === 'throws') throw new Error('execute boom');
    return new Observable<ToolEvent>((subscriber) => {
      const entry: [number, number | null, string] = [now(), null, ''];
      entries.push(entry);
      const inner = source().subscribe(subscriber);
      return () => {
        entry[1] = now();
        // The signal is made only for a cancelled call: it is then born aborted, with the reason.
        if ((context as CallContext).cancelled)
          entry[2] = `aborted: ${context.signal.reason?.name}`;
        inner.unsubscribe();
      };
    });
  };
  const tool: Tool = stubTool(`t_${id}`, execute, {
    ...(spec.resource === '' ? {} : { resource: spec.resource }),
    ...(spec.sequential ? { sequential: true } : {}),
  });
  return { tool, call };
}
