/**
 * Steps inside a call (`context.step(name, fn)`): each finished step is a record of the namespace
 * {@link STEP_NS}, and a resumed call reads its earlier run's steps back from `call.resumed`.
 * See docs/records.md.
 *
 * @module
 */
import type { ProgressUpdate } from './contract.js';
import type { Recordable, ToolRecord } from './records.js';

/** The namespace of a step's record: `{"step":<name>,"value":<JSON>,"progress"?:<update>}`. */
export const STEP_NS = 'agenttool:step';

/** The longest step name, in characters: a name is a key in the records and a word in a message. */
export const MAX_STEP_NAME = 128;

/** A finished step as recorded. */
export interface StepEntry {
  /** The step's value, as its JSON gives it back (undefined for a step that returned none). */
  readonly value: unknown;
  /** The last progress update the call had reported when the step finished, if any. */
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
 * The finished steps among `records`, by name in the order recorded. Only this process's records
 * count (a record with `remote` is a server's step, not the call's own), and an entry that is not
 * a step's JSON is skipped; a name recorded twice keeps its first value.
 */
export function stepsOf(records: readonly ToolRecord[] | undefined): Map<string, StepEntry> {
  const steps = new Map<string, StepEntry>();
  if (records === undefined) return steps;
  for (const record of records) {
    if (record.ns !== STEP_NS || record.remote !== undefined) continue;
    const entry = parseStep(record.data);
    if (entry !== undefined && !steps.has(entry.step)) steps.set(entry.step, entry);
  }
  return steps;
}

/**
 * The names of the steps `records` say a call finished, in order, remote ones included: what a
 * message about an interrupted call tells the model ran.
 */
export function stepNames(records: readonly ToolRecord[] | undefined): string[] {
  const names = new Set<string>();
  for (const record of records ?? []) {
    if (record.ns !== STEP_NS) continue;
    const entry = parseStep(record.data);
    if (entry !== undefined) names.add(entry.step);
  }
  return [...names];
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
