/**
 * Runs a model turn's function calls and shows them as they run: `toolBatchResource`
 * (`agenttool/angular`) gives the batch as a resource whose value is each call's state. A person
 * steers single calls from their rows (`<app-call-rows>`): Cancel (that call alone), Approve or
 * Refuse before a call that is not read-only takes a slot (when `askApproval` is set), and a
 * tool's question answered in a form. Hide takes the rows away and Show makes them anew while the
 * batch runs on: the new rows show every question and approval that waits, as a view made late
 * (a tab of the page switched to, a route come back to) does.
 *
 * ```html
 * <app-tool-calls [turn]="response.output" [tools]="tools" (outputs)="sendToModel($event)" />
 * ```
 *
 * A new `turn` (or `tools`) cancels the calls still running for the previous one (the resource
 * unsubscribes its stream), and so does destroying the component. Cancel cancels the batch's
 * unfinished calls instead, so that each still ends, with a CancelledError, and `outputs` still
 * emits the items the model needs to go on; a row's Cancel ends that call alone.
 */
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  input,
  output,
  signal,
} from '@angular/core';
import type { FunctionCallOutputItem, OutputItem, ToolSet } from 'agenttool';
import { toolBatchResource } from 'agenttool/angular';
import { CallRowsComponent } from './call-rows.component';

@Component({
  selector: 'app-tool-calls',
  imports: [CallRowsComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p>
      {{ ended() }} of {{ batch.value().length }} calls ended
      <button data-action="cancel" (click)="batch.cancel()" [disabled]="!batch.running()">
        Cancel
      </button>
      <button data-action="toggle-rows" (click)="shown.set(!shown())">
        {{ shown() ? 'Hide' : 'Show' }} the calls
      </button>
    </p>
    @if (shown()) {
      <app-call-rows [batch]="batch" />
    }
  `,
})
export class ToolCallsComponent {
  /** The model's output items; their function calls run as soon as they are set. */
  readonly turn = input.required<readonly OutputItem[]>();
  /** The tools the calls name. */
  readonly tools = input.required<ToolSet>();
  /** Asks for a person's approval before each call that is not read-only (default false). */
  readonly askApproval = input(false);
  /** The function_call_output items of the turn, in the model's order, once every call ended. */
  readonly outputs = output<FunctionCallOutputItem[]>();

  /** The calls of the current turn, as they run, and how to steer them. */
  protected readonly batch = toolBatchResource({
    params: () => ({ items: this.turn(), tools: this.tools() }),
    needsApproval: (job) => this.askApproval() && job.tool.annotations?.readOnlyHint !== true,
  });
  protected readonly ended = computed(
    () => this.batch.value().filter((call) => call.settled).length,
  );
  /** Whether the rows are shown; hiding them ends the view, not the batch. */
  protected readonly shown = signal(true);

  constructor() {
    effect(() => {
      const items = this.batch.outputs();
      if (items !== undefined) this.outputs.emit(items);
    });
  }
}
