/**
 * Runs a model turn's function calls and shows them as they run: the engine's events become each
 * call's state with `batchState`, and the states a signal with `toSignal`.
 *
 * ```html
 * <app-tool-calls [turn]="response.output" [tools]="tools" (outputs)="sendToModel($event)" />
 * ```
 *
 * A new `turn` (or `tools`) cancels the calls still running for the previous one (`switchMap`
 * unsubscribes), and so does destroying the component (`toSignal` unsubscribes). Cancel aborts the
 * batch's signal instead, so that every unfinished call still ends, with a CancelledError, and
 * `outputs` still emits the items the model needs to go on.
 */
import { ChangeDetectionStrategy, Component, computed, input, output } from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { switchMap, tap } from 'rxjs';
import {
  batchState,
  executeBatchWithStarts,
  jobsFromItems,
  toOutputItems,
  type CallState,
  type FunctionCallOutputItem,
  type OutputItem,
  type ToolSet,
} from 'agenttool';

@Component({
  selector: 'app-tool-calls',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p>
      {{ ended() }} of {{ calls().length }} calls ended
      <button data-action="cancel" (click)="cancel()" [disabled]="!running()">Cancel</button>
    </p>
    <table>
      @for (call of calls(); track call.callId) {
        <tr [attr.data-call-id]="call.callId" [attr.data-phase]="call.phase">
          <td class="name">{{ call.name }}</td>
          <td class="phase">{{ call.phase }}</td>
          <td>
            @if (fraction(call); as done) {
              <progress max="1" [value]="done" [attr.data-progress]="done"></progress>
            }
          </td>
          <td class="text">{{ call.message }}</td>
          <td class="elapsed">{{ call.elapsed }} ms</td>
        </tr>
      }
    </table>
  `,
  styles: `
    table {
      border-collapse: collapse;
      width: 100%;
    }
    td {
      border-bottom: 1px solid #ddd;
      padding: 0.3em 0.6em;
    }
    .name {
      font-family: monospace;
    }
    .elapsed {
      text-align: right;
      color: #666;
    }
    tr[data-phase='failed'] .phase {
      color: #b00020;
    }
    tr[data-phase='cancelled'] .phase {
      color: #8a6d00;
    }
    tr[data-phase='done'] .phase {
      color: #1b5e20;
    }
  `,
})
export class ToolCallsComponent {
  /** The model's output items; their function calls run as soon as they are set. */
  readonly turn = input.required<readonly OutputItem[]>();
  /** The tools the calls name. */
  readonly tools = input.required<ToolSet>();
  /** The function_call_output items of the turn, in the model's order, once every call ended. */
  readonly outputs = output<FunctionCallOutputItem[]>();

  private controller = new AbortController();

  /** The calls of the current turn, as they run. */
  readonly calls = toSignal(
    toObservable(computed(() => ({ items: this.turn(), tools: this.tools() }))).pipe(
      switchMap(({ items, tools }) => {
        const jobs = jobsFromItems(items, tools);
        this.controller = new AbortController();
        let calls: readonly CallState[] = [];
        return executeBatchWithStarts(jobs, { signal: this.controller.signal }).pipe(
          batchState(jobs),
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
  readonly ended = computed(() => this.calls().filter((call) => call.settled).length);

  /** How far a call is, from 0 to 1, when its tool reports a total. */
  fraction(call: CallState): number | undefined {
    const info = call.progress;
    return info?.total ? info.progress / info.total : undefined;
  }

  /** Cancels the running calls; each ends with a CancelledError and `outputs` still emits. */
  cancel(): void {
    this.controller.abort();
  }
}
