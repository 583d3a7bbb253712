/**
 * The differential check of the engine against the pipeline model (marbles/pipeline-model.ts):
 * random batches, run through both in virtual time, must give the same events at the same frames
 * and the same tool subscriptions at the same frames. Shared by the test in `npm test` and the
 * long run of `npm run soak`.
 */
import { expect } from 'chai';
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
  type SchedulerLike,
  type Subscription,
  VirtualAction,
  VirtualTimeScheduler,
} from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { TestMessage } from 'rxjs/internal/testing/TestMessage';
import type {
  ResourceFunction,
  ResourceName,
  Tool,
  ToolContext,
  ToolEvent,
} from '../lib/contract.js';
import type { CallContext } from '../lib/context.js';
import { executeBatch } from '../operators/execute-batch.js';
import { executeCalls } from '../operators/execute-calls.js';
import type { ExecuteOptions, ExecutionEvent, Job } from '../operators/job.js';
import { final, progress, stubTool } from '../testing/index.js';
import { rawTool } from '../lib/raw-tool.js';
import { registerDirectRun } from '../lib/call-consumer.js';
import { runDirect } from '../lib/direct-run.js';
import { registerSoloRun } from '../operators/execute-batch.js';
import { runsAlone, SoloRun } from '../operators/internal/solo-run.js';

// The engine runs a rawTool()'s function directly, and a batch of one call without its
// turn-taking, as under the Node entry (index.ts), while the model subscribes its `execute`
// through its pipeline: both must show the same trace.
registerDirectRun(runDirect);
registerSoloRun({ runsAlone, SoloRun });
import { modelBatch, modelCalls, type ModelOptions } from './pipeline-model.js';

/** How one job's tool behaves. */
export interface ToolSpec {
  /**
   * cold: a marble; sync: final inside subscribe; held: final inside subscribe, never completes;
   * value: its function returns the final result (by hand: final inside subscribe).
   */
  kind: 'cold' | 'sync' | 'held' | 'throws' | 'missing' | 'value';
  /**
   * How the tool is made: by hand (the engine subscribes its `execute`), or by `rawTool()` over the
   * same function, whose calls the engine runs directly (lib/direct-run.ts) and the model through
   * `execute`'s Observable.
   */
  made?: 'hand' | 'rawTool';
  /** For `cold`: p progress, f final, q progress after the final, # error, | completion. */
  marble: string;
  /**
   * The tool's fixed resource; or, for `args:*`, a resource named from the call's arguments: the
   * file the arguments name (`args:fs` names "fs", `args:none` names none), or arguments that do
   * not parse (`args:bad`), so the call fails without a turn.
   */
  resource: '' | 'fs' | 'net' | 'args:fs' | 'args:net' | 'args:none' | 'args:bad';
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
  /** Per job: when its own signal aborts (`'before'`: aborted when made), or null for no signal. */
  jobAborts?: (number | 'before' | null)[];
  /** Per job: its approval, at once (`at` null) or at frame `at`; null approves at once. */
  approvals?: ({ value: boolean; at: number | null } | null)[];
  unsubscribeAt: number | undefined;
  take: number | undefined;
  /**
   * The capacity every tool naming `fs` or `net` states (fixed or from the arguments): 1 names it
   * as a plain string, more as `{ key, capacity }`. One per key, so the tools agree.
   */
  stated?: { fs: number; net: number } | undefined;
  /** The application's `capacities` (now and then one that cannot be, failing the batch). */
  capacities?: Record<string, number> | undefined;
}

/** `arbitrary` in about one case of four, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary, weight: 1 });
}

const toolSpec: fc.Arbitrary<ToolSpec> = fc.record({
  kind: fc.constantFrom(
    'cold',
    'cold',
    'cold',
    'cold',
    'sync',
    'held',
    'throws',
    'missing',
    'value',
  ),
  made: fc.constantFrom('hand', 'hand', 'rawTool'),
  marble: fc
    .tuple(
      fc.array(fc.constantFrom('-', '-', 'p'), { maxLength: 4 }),
      fc.constantFrom('(f|)', 'f', 'f-q|', '#', '|', '', '--(f|)'),
    )
    .map(([head, end]) => head.join('') + end),
  resource: fc.constantFrom('', '', 'fs', 'net', 'args:fs', 'args:net', 'args:none', 'args:bad'),
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
      jobAborts: fc.array(
        fc.oneof(
          { arbitrary: fc.constant(null), weight: 6 },
          { arbitrary: fc.nat(8), weight: 3 },
          { arbitrary: fc.constant('before' as const), weight: 1 },
        ),
        { minLength: size, maxLength: size },
      ),
      approvals: sometimes(
        fc.array(
          fc.option(fc.record({ value: fc.boolean(), at: fc.option(fc.nat(6), { freq: 2 }) }), {
            freq: 2,
          }),
          { minLength: size, maxLength: size },
        ),
      ),
      unsubscribeAt: sometimes(fc.nat(10)),
      take: sometimes(fc.integer({ min: 1, max: 6 })),
      stated: sometimes(
        fc.record({ fs: fc.constantFrom(1, 2, 3), net: fc.constantFrom(1, 2, Infinity) }),
      ),
      capacities: sometimes(
        fc.dictionary(fc.constantFrom('fs', 'net', 'other'), fc.constantFrom(1, 2, 3, 3, 0), {
          maxKeys: 2,
        }),
      ),
    })
    .map((c) => ({
      ...c,
      // A job is pushed only after the final of an earlier job, so every case can end.
      pushAfter: c.pushAfter.map((p, i) => (c.mode === 'calls' && p !== null && p < i ? p : null)),
    }));
}

/**
 * Runs `spec` through the engine and the model and throws, with chai's diff, when the traces
 * differ. `plantedBug` runs the model with its planted slot-policy bug (`'capacity'`: with every
 * chain one call at a time, whatever its capacity).
 */
export function expectSameTrace(spec: Case, plantedBug: PlantedBug = false): void {
  expect(trace(spec, 'engine'), 'engine (actual) against model (expected)').to.deep.equal(
    trace(spec, 'model', plantedBug),
  );
}

/** What one run shows: every notification with its frame, and each job's tool subscriptions. */
export interface Trace {
  events: [number, string, unknown][];
  subscriptions: Record<string, [number, number | null, string][]>;
}

type Engine = 'engine' | 'model';

/** A bug planted in the model: none, the slot policy's (true), or the capacities' ('capacity'). */
type PlantedBug = boolean | 'capacity';

/** Runs `spec` through the engine or the model, in virtual time. */
export function trace(spec: Case, side: Engine, plantedBug: PlantedBug = false): Trace {
  // Stacks are never compared, and capturing deep rxjs stacks for every cancellation is most of
  // the cost of a case: none are captured while a case runs.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return run(spec, side, plantedBug);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function run(spec: Case, side: Engine, plantedBug: PlantedBug): Trace {
  // A bare virtual clock, one frame a millisecond, passed to everything that waits: cheaper than
  // TestScheduler.run, so that thousands of cases fit in seconds.
  const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
  const result: Trace = { events: [], subscriptions: {} };
  {
    const now = () => scheduler.now();
    const jobs = spec.tools.map((t, i) =>
      withSignal(
        makeJob(t, `c${i}`, scheduler, result.subscriptions, spec.stated),
        spec.jobAborts?.[i] ?? null,
        scheduler,
      ),
    );
    const controller = spec.abortAt === undefined ? undefined : new AbortController();
    const options: ModelOptions = {
      maxParallel: spec.maxParallel,
      sequential: spec.sequential || undefined,
      timeout: spec.timeout,
      onStart: onStartOf(spec),
      approve: approveOf(spec, scheduler),
      capacities: spec.capacities,
      scheduler,
      ...(controller === undefined ? {} : { signal: controller.signal }),
      ...(side !== 'model'
        ? {}
        : plantedBug === 'capacity'
          ? { plantedCapacityBug: true }
          : { plantedBug }),
    };
    if (spec.abortAt === 'before') controller?.abort(abortReason);
    else if (spec.abortAt !== undefined)
      scheduler.schedule(() => controller?.abort(abortReason), spec.abortAt);

    let events: Observable<ExecutionEvent>;
    const pushed = new Subject<Job>();
    if (spec.mode === 'batch') {
      events = side === 'engine' ? executeBatch(jobs, options) : modelBatch(jobs, options);
    } else {
      const source = merge(arrivalsOf(spec, jobs, scheduler), pushed);
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
  }
  scheduler.flush();
  return result;
}

/** `job` with its own signal, aborted at `at` (or at once for `'before'`); as is for null. */
function withSignal(job: Job, at: number | 'before' | null, scheduler: SchedulerLike): Job {
  if (at === null) return job;
  const controller = new AbortController();
  if (at === 'before') controller.abort(abortReason);
  else scheduler.schedule(() => controller.abort(abortReason), at);
  return { ...job, signal: controller.signal };
}

/** An approve answering each job as `spec.approvals` says, on `scheduler`; undefined without. */
function approveOf(spec: Case, scheduler: SchedulerLike): ExecuteOptions['approve'] {
  const approvals = spec.approvals;
  if (approvals === undefined) return undefined;
  return (_job, index) => {
    const approval = approvals[index] ?? null;
    if (approval === null) return true;
    if (approval.at === null) return approval.value;
    return timer(approval.at, scheduler).pipe(map(() => approval.value));
  };
}

function onStartOf(spec: Case): ExecuteOptions['onStart'] {
  const on = spec.onStart;
  if (on === undefined) return undefined;
  return (_job, index) => {
    if (index !== on.index) return;
    if (on.how === 'throw') throw refusal;
    if (on.how === 'value') throw 'refused as a string';
    return {
      get then(): never {
        throw new Error('then getter boom');
      },
    } as unknown as Promise<void>;
  };
}

/** The source of executeCalls: each job not pushed at its arrival frame, in job order, then the end. */
function arrivalsOf(spec: Case, jobs: Job[], scheduler: SchedulerLike): Observable<Job> {
  const arrivals = jobs.flatMap((job, i) =>
    spec.pushAfter[i] === null
      ? [timer(spec.arrivals[i] ?? 0, scheduler).pipe(map(() => job))]
      : [],
  );
  const { how, at } = spec.sourceEnd;
  const end =
    how === 'never'
      ? NEVER
      : how === 'error'
        ? timer(at, scheduler).pipe(mergeMap(() => throwError(() => new Error('source boom'))))
        : timer(at, scheduler).pipe(ignoreElements());
  return merge(...arrivals, end);
}

const toolValues = { p: progress('half'), f: final('done'), q: progress('late') };
// Made once, their stacks read once: a ToolPanicError copies the stack of what a tool threw, and
// formatting a fresh stack (through source maps, under tsx) costs more than a whole case.
const toolError = new Error('tool boom');
const executeError = new Error('execute boom');
const refusal = new Error('onStart refused');
const abortReason = new Error('aborted by the test');
void [toolError.stack, executeError.stack, refusal.stack];
const parsed = new Map<string, TestMessage[]>();

/** A cold observable of `marble` on `scheduler`, as TestScheduler's `cold` (parsed once). */
function scripted(marble: string, scheduler: SchedulerLike): Observable<ToolEvent> {
  let messages = parsed.get(marble);
  if (messages === undefined) {
    // Outside run(), a marble character is frameTimeFactor frames: here it is one, as in run().
    messages = TestScheduler.parseMarbles(marble, toolValues, toolError, false, true).map(
      (message) => ({ ...message, frame: message.frame / TestScheduler.frameTimeFactor }),
    );
    parsed.set(marble, messages);
  }
  const script = messages;
  return new Observable<ToolEvent>((subscriber) => {
    for (const { frame, notification } of script) {
      const deliver = () => {
        if (notification.kind === 'N') subscriber.next(notification.value as ToolEvent);
        else if (notification.kind === 'E') subscriber.error(notification.error);
        else subscriber.complete();
      };
      subscriber.add(scheduler.schedule(deliver, frame));
    }
  });
}

/** `key` as a tool states it: plain, or counted when `stated` gives it a capacity above 1. */
function named(key: string, stated: Case['stated']): ResourceName {
  const capacity = key === 'fs' || key === 'net' ? (stated?.[key] ?? 1) : 1;
  return capacity === 1 ? key : { key, capacity };
}

/** A resource named by the call's `path` argument ("none" names none), stated as `stated` says. */
function pathResource(stated: Case['stated']): ResourceFunction {
  return (args) => (args.path === 'none' ? '' : named(String(args.path), stated));
}

function makeJob(
  spec: ToolSpec,
  id: string,
  scheduler: SchedulerLike,
  log: Trace['subscriptions'],
  stated: Case['stated'],
): Job {
  const byArgs = spec.resource.startsWith('args:') ? spec.resource.slice(5) : undefined;
  const args =
    byArgs === undefined ? '' : byArgs === 'bad' ? '{"path":' : JSON.stringify({ path: byArgs });
  const call = { id, args };
  if (spec.kind === 'missing') return { tool: undefined as unknown as Tool, call };
  const entries: [number, number | null, string][] = (log[id] = []);
  const now = () => scheduler.now();
  const source = (): Observable<ToolEvent> => {
    switch (spec.kind) {
      case 'sync':
      case 'value':
        return new Observable<ToolEvent>((s) => {
          s.next(final(spec.kind));
          s.complete();
        });
      case 'held':
        return new Observable<ToolEvent>((s) => s.next(final('held')));
      default:
        return scripted(spec.marble, scheduler);
    }
  };
  const execute = (_call: unknown, context: ToolContext): Observable<ToolEvent> => {
    if (spec.kind === 'throws') throw executeError;
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
  const properties = {
    ...(spec.resource === ''
      ? {}
      : byArgs === undefined
        ? { resource: named(spec.resource, stated) }
        : { resource: pathResource(stated) }),
    ...(spec.sequential ? { sequential: true } : {}),
  };
  const tool: Tool =
    spec.made !== 'rawTool'
      ? stubTool(`t_${id}`, execute, properties)
      : rawTool({
          name: `t_${id}`,
          description: '',
          ...properties,
          execute: (toolCall, context) => {
            if (spec.kind !== 'value') return execute(toolCall, context);
            entries.push([now(), now(), '']);
            return { output: 'value' };
          },
        });
  return { tool, call };
}
