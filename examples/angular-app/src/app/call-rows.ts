/**
 * The calls of a batch as rows a template shows: the engine's events folded with `scan`, one new
 * array (and one new row) per change, since signals compare by reference.
 */
import { Observable, scan, startWith } from 'rxjs';
import { executeBatch, type ExecutionEvent, type Job, type ProgressInfo } from 'agenttool';

/** One call as the page shows it. */
export interface CallRow {
  readonly callId: string;
  readonly name: string;
  readonly phase: 'waiting' | 'running' | 'done' | 'failed' | 'cancelled';
  /** How far the call is, from 0 to 1, when its tool reports numbers. */
  readonly progress?: number;
  /** The last progress message, then the output's text or the error's message. */
  readonly text: string;
}

type Step = ExecutionEvent | { readonly index: number; readonly started: true };

function textOf(event: ExecutionEvent): string {
  if (event.error !== undefined) return event.error.message;
  const output = event.result?.output ?? '';
  if (typeof output === 'string') return output;
  return output
    .map((part) => (part.type === 'input_text' ? part.text : `[${part.type}]`))
    .join(' ');
}

function fold(rows: readonly CallRow[], step: Step): readonly CallRow[] {
  const row = rows[step.index]!;
  let next: CallRow;
  if ('started' in step) next = { ...row, phase: 'running' };
  else if (!step.final) {
    const info = step.result?.details as ProgressInfo | undefined;
    const progress =
      typeof info?.progress === 'number' && typeof info.total === 'number' && info.total > 0
        ? info.progress / info.total
        : row.progress;
    next = { ...row, text: textOf(step) || row.text, ...(progress !== undefined && { progress }) };
  } else if (step.error !== undefined) {
    const cancelled = (step.error as { code?: string }).code === 'cancelled';
    next = { ...row, phase: cancelled ? 'cancelled' : 'failed', text: textOf(step) };
  } else next = { ...row, phase: 'done', text: textOf(step) };
  return rows.map((r, i) => (i === step.index ? next : r));
}

/**
 * Runs `jobs` with `executeBatch` and emits the rows: all waiting first, then after each start,
 * progress and end; completes once every call has ended. Aborting `signal` ends every unfinished
 * call as cancelled; unsubscribing cancels the running calls.
 */
export function callRows(
  jobs: readonly Job[],
  signal?: AbortSignal,
): Observable<readonly CallRow[]> {
  const initial: readonly CallRow[] = jobs.map((job) => ({
    callId: job.call.id,
    name: job.tool.name,
    phase: 'waiting',
    text: '',
  }));
  // onStart is a callback: merged into the event stream, so that one scan sees both in order.
  const steps = new Observable<Step>((subscriber) =>
    executeBatch(jobs, {
      ...(signal && { signal }),
      onStart: (_job, index) => subscriber.next({ index, started: true }),
    }).subscribe(subscriber),
  );
  return steps.pipe(scan(fold, initial), startWith(initial));
}
