/**
 * Steps inside a call (`context.step(name, fn)`): each finished step is a record of the namespace
 * {@link STEP_NS}, and a resumed call reads its earlier run's steps back from `call.resumed`.
 * See docs/records.md.
 *
 * @module
 */
import { isObservable } from 'rxjs';
import { CallContext } from './context.js';
import type { ProgressUpdate, ToolContext } from './contract.js';
import { describeThrown, oneLine } from './errors.js';
import { argsHash } from './args-hash.js';
import { installArgsHash, installStepsRan, type Recordable, type ToolRecord } from './records.js';

/** The namespace of a step's record: `{"step":<name>,"value":<JSON>,"progress"?:<update>}`. */
export const STEP_NS = 'agenttool:step';

/** The longest step name, in characters: a name is a key in the records and a word in a message. */
export const MAX_STEP_NAME = 128;

/** A finished step as recorded. */
export interface StepEntry {
  /** The step's value, as its JSON gives it back (undefined for a step that returned none). */
  readonly value: unknown;
  /**
   * The last progress update the call had reported when the step finished, if any and if no
   * earlier step had committed it.
   */
  readonly progress?: ProgressUpdate;
}

/**
 * What a resumed call's earlier run committed, on `context.resumed`: the steps it finished, in
 * the order they finished, and the progress the last of them committed.
 */
export interface ResumedRun {
  /** The names of the steps the earlier run finished, in the order they finished. */
  readonly steps: readonly string[];
  /**
   * The last progress update the earlier run had reported when its last step finished (as JSON
   * gives it back); undefined when it had reported none.
   */
  readonly progress: ProgressUpdate | undefined;
}

/** The record of one finished step. */
export class StepRecord implements Recordable {
  constructor(
    readonly step: string,
    readonly value: unknown,
    readonly progress: ProgressUpdate | undefined,
  ) {}
  recordNS(): string {
    return STEP_NS;
  }
}

/**
 * The finished steps among `records`, by name in the order recorded; an entry that is not a
 * step's JSON is skipped, and a name recorded twice keeps its first value. Only this process's
 * records count (a record with `remote` is a server's step, not the call's own) unless
 * `remote` is true: what a message about an interrupted call tells the model ran includes them.
 */
export function stepsOf(
  records: readonly ToolRecord[] | undefined,
  remote = false,
): Map<string, StepEntry> {
  const steps = new Map<string, StepEntry>();
  if (records === undefined) return steps;
  for (const record of records) {
    if (record.ns !== STEP_NS || (!remote && record.remote !== undefined)) continue;
    const entry = parseStep(record.data);
    if (entry !== undefined && !steps.has(entry.step)) steps.set(entry.step, entry);
  }
  return steps;
}

function parseStep(data: string): (StepEntry & { step: string }) | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { step, value, progress } = parsed as {
    step?: unknown;
    value?: unknown;
    progress?: unknown;
  };
  if (typeof step !== 'string') return undefined;
  return progress === undefined
    ? { step, value }
    : { step, value, progress: progress as ProgressUpdate };
}

/**
 * Why `name` cannot name a step, or undefined: a step name is 1 to {@link MAX_STEP_NAME}
 * characters with no control character (it is quoted in a one-line message to the model).
 */
export function stepNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `a step name must be a string, got ${typeof name}`;
  if (name === '' || name.length > MAX_STEP_NAME)
    return `step name ${JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name)}: 1 to ${MAX_STEP_NAME} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name))
    return `step name ${JSON.stringify(name)}: no control characters`;
  return undefined;
}

/** One call's steps: the names it has begun, and what its earlier run finished. */
export class CallSteps {
  /** The names of the steps begun and not failed: a name names one step a call. */
  readonly begun = new Set<string>();
  /** The steps the earlier run finished, from `call.resumed`. */
  readonly earlier: Map<string, StepEntry>;
  /** The progress update the last recorded step committed: a step commits only a newer one. */
  committed: ProgressUpdate | undefined = undefined;

  constructor(resumed: readonly ToolRecord[] | undefined) {
    this.earlier = stepsOf(resumed);
  }

  /** Begins the step `name`, or gives the TypeError that refuses it (and begins nothing). */
  begin(name: string, fn: unknown, callId: string): TypeError | undefined {
    const problem = stepNameProblem(name);
    if (problem !== undefined) return new TypeError(`step: ${problem}`);
    if (typeof fn !== 'function') return new TypeError(`step "${name}": fn must be a function`);
    if (this.begun.has(name))
      return new TypeError(
        `step "${name}" is already a step of call "${callId}": a call's step names are unique`,
      );
    this.begun.add(name);
    return undefined;
  }

  /** What `context.resumed` reads: undefined when the earlier run finished no step. */
  resumedRun(): ResumedRun | undefined {
    if (this.earlier.size === 0) return undefined;
    let progress: ProgressUpdate | undefined;
    for (const entry of this.earlier.values())
      if (entry.progress !== undefined) progress = entry.progress;
    return { steps: [...this.earlier.keys()], progress };
  }
}

/**
 * Runs a step's function: its value, its Promise's, or its Observable's last value (an
 * Observable that completes without one fails the step). The call's cancellation (`signal`,
 * read only for an Observable) unsubscribes the Observable and rejects with its reason.
 */
export function runStep(
  name: string,
  fn: () => unknown,
  signal: () => AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const out = fn();
    if (!isObservable(out)) return resolve(out);
    const aborts = signal();
    let last: { value: unknown } | undefined;
    const stop = (): void => {
      following.unsubscribe();
      reject(aborts.reason);
    };
    const following = out.subscribe({
      next: (value) => (last = { value }),
      error: (err: unknown) => {
        aborts.removeEventListener('abort', stop);
        reject(err);
      },
      complete: () => {
        aborts.removeEventListener('abort', stop);
        if (last === undefined)
          reject(new TypeError(`step "${name}": its observable completed without a value`));
        else resolve(last.value);
      },
    });
    if (!following.closed) aborts.addEventListener('abort', stop, { once: true });
  });
}

/**
 * A step's value as its JSON gives it back, which is what the step resolves with on every run;
 * a TypeError for a value that is not JSON (undefined is kept: the step has no value).
 */
export function stepValue(name: string, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`step "${name}": its value is not JSON: ${oneLine(describeThrown(err))}`);
  }
  if (text === undefined && value !== undefined)
    throw new TypeError(`step "${name}": its value is not JSON: a ${typeof value}`);
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * The progress a step commits: the call's last update, `update`, when it is JSON and newer than
 * the one the last recorded step committed; else none.
 */
export function jsonProgress(
  update: ProgressUpdate | undefined,
  steps: CallSteps,
): ProgressUpdate | undefined {
  if (update === undefined || update === steps.committed) return undefined;
  try {
    return JSON.stringify(update) === undefined ? undefined : update;
  } catch {
    return undefined;
  }
}

/** A step whose record could not be written: one console.error line; its value stands. */
export function reportUnrecorded(name: string, callId: string, err: unknown): void {
  console.error(
    `agenttool: step ${JSON.stringify(name)} of call ${JSON.stringify(callId)} was not recorded (${oneLine(describeThrown(err))}): a resumed run runs it again`,
  );
}

/** Each stepping call's steps, made by its first step. */
const callSteps = new WeakMap<CallContext, CallSteps>();

function stepsOfCall(context: CallContext): CallSteps {
  let steps = callSteps.get(context);
  if (steps === undefined) callSteps.set(context, (steps = new CallSteps(context.call.resumed)));
  return steps;
}

/** `context.step(name, fn)`: see `ToolContext.step` and docs/records.md. */
function step(context: Stepping, name: string, fn: () => unknown): Promise<unknown> {
  const steps = stepsOfCall(context);
  const callId = context.call.id;
  const invalid = steps.begin(name, fn, callId);
  if (invalid !== undefined) return Promise.reject(invalid);
  const earlier = steps.earlier.get(name);
  if (earlier !== undefined) return Promise.resolve(earlier.value);
  // A cancelled call's signal is aborted with the reason it was cancelled with.
  const ran = context.cancelled
    ? Promise.reject(context.signal.reason)
    : runStep(name, fn, () => context.signal).then((value) => {
        // A step that ends after its call was cancelled is not recorded: the call has ended.
        if (context.cancelled) throw context.signal.reason;
        const copy = stepValue(name, value);
        const progress = jsonProgress(context.lastProgress, steps);
        return context.record(new StepRecord(name, copy, progress)).then(
          () => {
            if (progress !== undefined) steps.committed = progress;
            return copy;
          },
          (err: unknown) => {
            reportUnrecorded(name, callId, err);
            return copy;
          },
        );
      });
  // A step that failed was not recorded: its name is free for another try.
  return ran.catch((err: unknown) => {
    steps.begun.delete(name);
    throw err;
  });
}

/** `context.resumed`: undefined on a first run, and when the earlier run finished no step. */
function resumed(context: CallContext): ResumedRun | undefined {
  return context.call.resumed === undefined ? undefined : stepsOfCall(context).resumedRun();
}

/** What a NotReplayedError says the earlier run finished: ` after steps "download", "unpack"`. */
function ran(records: readonly ToolRecord[] | undefined): string | undefined {
  const names = [...stepsOf(records, true).keys()];
  if (names.length === 0) return undefined;
  const quoted = names.map((name) => JSON.stringify(name)).join(', ');
  return ` after step${names.length === 1 ? '' : 's'} ${quoted}`;
}

/** A context as the steps see it: the last progress update it reported, which a step commits. */
type Stepping = CallContext & { lastProgress?: ProgressUpdate };

/** Whether {@link registerSteps} has run. */
let installed = false;

/**
 * Puts `context.step` and `context.resumed` on every {@link CallContext}, the steps in the
 * message of a NotReplayedError, and the hash of a call's arguments that a resume journal matches
 * calls by (`StartedCall.argsHash`); the Node entry (`agenttool`) calls it when loaded. A browser
 * bundle whose tools take steps calls it once, first: without it `context.step` refuses, saying so.
 * Calling it again does nothing.
 *
 * On the prototype rather than in the class, so that a browser bundle that does not call it goes
 * without their code (the bundle's size is held by test/packaging/bundle-size.test.ts). `progress` is
 * wrapped to keep each context's last update, which the next step to finish commits.
 */
export function registerSteps(): void {
  const proto = CallContext.prototype as Stepping;
  if (installed) return;
  installed = true;
  const progress = proto.progress;
  Object.defineProperties(proto, {
    step: {
      configurable: true,
      writable: true,
      value: function (this: Stepping, name: string, fn: () => unknown) {
        return step(this, name, fn);
      } as ToolContext['step'],
    },
    resumed: {
      configurable: true,
      get(this: Stepping) {
        return resumed(this);
      },
    },
    progress: {
      configurable: true,
      writable: true,
      value: function (this: Stepping, update: ProgressUpdate) {
        if (!this.cancelled) this.lastProgress = update;
        progress.call(this, update);
      },
    },
  });
  installStepsRan(ran);
  installArgsHash(argsHash);
}
