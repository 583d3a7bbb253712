/**
 * An Angular component that runs a model turn's function calls and shows them as they run: the
 * engine's events become the calls' state with `batchState`, and the state a signal with `toSignal`.
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
import { type Observable, switchMap, tap } from 'rxjs';
import {
  batchState,
  executeBatchWithStarts,
  jobsFromItems,
  toOutputItems,
  type CallState,
  type FunctionCallOutputItem,
  type Job,
  type OutputItem,
  type ToolSet,
} from '../index.js';

/** The tools the component runs calls with; provide a ToolSet for the app. */
export const AGENT_TOOLS = new InjectionToken<ToolSet>('agenttool tools');

/**
 * The calls of `jobs` as they run: every call waiting, then a new array after each start,
 * progress and end, and completion once every call has ended. Framework-free: the component
 * below is a few lines around it.
 */
export function callStates(
  jobs: readonly Job[],
  signal?: AbortSignal,
): Observable<readonly CallState[]> {
  return executeBatchWithStarts(jobs, { ...(signal && { signal }) }).pipe(batchState(jobs));
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
        <span>{{ call.message }}</span>
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
        let calls: readonly CallState[] = [];
        return callStates(jobs, this.controller.signal).pipe(
          tap({
            next: (latest) => (calls = latest),
            complete: () =>
              this.outputs.emit(
                toOutputItems(
                  jobs,
                  calls.map((call) => call.settled!),
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
