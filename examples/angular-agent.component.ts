/**
 * An Angular component that runs a model turn's function calls and shows them as they run: the
 * engine's events become state with `scan`, and the state becomes a signal with `toSignal`.
 *
 * ```html
 * <agent-tool-calls [turn]="response.output" (outputs)="sendToModel($event)" />
 * ```
 *
 * with the tools provided once for the app:
 *
 * ```ts
 * bootstrapApplication(App, { providers: [{ provide: AGENT_TOOLS, useValue: new ToolSet(tools) }] });
 * ```
 *
 * A new `turn` cancels the calls still running for the previous one (`switchMap` unsubscribes),
 * and so does destroying the component (`toSignal` unsubscribes). Cancel aborts the batch's signal
 * instead, so that every unfinished call still ends, with a CancelledError, and `outputs` still
 * emits the items the model needs to go on.
 *
 * @module
 */
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  InjectionToken,
  input,
  output,
} from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { Observable, scan, startWith, switchMap, tap } from 'rxjs';
import {
  executeBatch,
  jobsFromItems,
  toOutputItems,
  type ExecutionEvent,
  type FunctionCallOutputItem,
  type Job,
  type OutputItem,
  type ProgressInfo,
  type SettledResult,
  type ToolSet,
} from '../index.js';

/** The tools the component runs calls with; provide a ToolSet for the app. */
export const AGENT_TOOLS = new InjectionToken<ToolSet>('agenttool tools');

/** One call as the template shows it. */
export interface CallView {
  readonly callId: string;
  readonly name: string;
  readonly phase: 'waiting' | 'running' | 'done' | 'failed' | 'cancelled';
  /** The last progress numbers, when the tool reports any. */
  readonly progress?: ProgressInfo;
  /** The last progress text, then the output's text or the error's message. */
  readonly text: string;
  /** How the call settled, once it has. */
  readonly settled?: SettledResult;
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

function fold(rows: readonly CallView[], step: Step): readonly CallView[] {
  const row = rows[step.index]!;
  let next: CallView;
  if ('started' in step) next = { ...row, phase: 'running' };
  else if (!step.final) {
    const details = step.result?.details as ProgressInfo | undefined;
    const progress = typeof details?.progress === 'number' ? details : row.progress;
    next = { ...row, text: textOf(step) || row.text, ...(progress && { progress }) };
  } else if (step.error !== undefined) {
    const cancelled = (step.error as { code?: string }).code === 'cancelled';
    const phase = cancelled ? 'cancelled' : 'failed';
    next = { ...row, phase, text: textOf(step), settled: { error: step.error } };
  } else next = { ...row, phase: 'done', text: textOf(step), settled: { result: step.result } };
  // A new array and a new row for each change: signals compare by reference.
  return rows.map((r, i) => (i === step.index ? next : r));
}

/**
 * The calls of `jobs` as they run: the rows before anything ran, then the rows after each start,
 * progress and end, and completion once every call has ended. Framework-free: the component
 * below is a few lines around it.
 */
export function callViews(
  jobs: readonly Job[],
  signal?: AbortSignal,
): Observable<readonly CallView[]> {
  const initial: readonly CallView[] = jobs.map((job) => ({
    callId: job.call.id,
    name: job.tool.name,
    phase: 'waiting',
    text: '',
  }));
  // onStart is a callback; merge it into the event stream so that one scan sees both, in order.
  const steps = new Observable<Step>((subscriber) =>
    executeBatch(jobs, {
      ...(signal && { signal }),
      onStart: (_job, index) => subscriber.next({ index, started: true }),
    }).subscribe(subscriber),
  );
  return steps.pipe(scan(fold, initial), startWith(initial));
}

@Component({
  selector: 'agent-tool-calls',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p>{{ summary() }} <button (click)="cancel()" [disabled]="!running()">Cancel</button></p>
    @for (call of calls(); track call.callId) {
      <div class="call" [attr.data-phase]="call.phase">
        <b>{{ call.name }}</b> {{ call.phase }}
        @if (call.progress?.total; as total) {
          <progress [value]="call.progress!.progress" [max]="total"></progress>
        }
        <span>{{ call.text }}</span>
      </div>
    }
  `,
})
export class AgentToolCallsComponent {
  /** The model's output items; their function calls run as soon as they are set. */
  readonly turn = input.required<readonly OutputItem[]>();
  /** The function_call_output items of the turn, in the model's order, once every call ended. */
  readonly outputs = output<FunctionCallOutputItem[]>();

  private readonly tools = inject(AGENT_TOOLS);
  private controller = new AbortController();

  /** The calls of the current turn, as they run. */
  readonly calls = toSignal(
    toObservable(this.turn).pipe(
      switchMap((items) => {
        const jobs = jobsFromItems(items, this.tools);
        this.controller = new AbortController();
        let rows: readonly CallView[] = [];
        return callViews(jobs, this.controller.signal).pipe(
          tap({
            next: (latest) => (rows = latest),
            complete: () =>
              this.outputs.emit(
                toOutputItems(
                  jobs,
                  rows.map((r) => r.settled!),
                ),
              ),
          }),
        );
      }),
    ),
    { initialValue: [] },
  );

  readonly running = computed(() =>
    this.calls().some((call) => call.phase === 'waiting' || call.phase === 'running'),
  );

  readonly summary = computed(() => {
    const calls = this.calls();
    const ended = calls.filter((call) => call.settled !== undefined).length;
    return `${ended} of ${calls.length} calls ended`;
  });

  /** Cancels the running calls; each ends with a CancelledError and `outputs` still emits. */
  cancel(): void {
    this.controller.abort();
  }
}
