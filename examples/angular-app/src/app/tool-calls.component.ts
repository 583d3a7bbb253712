/**
 * Runs a model turn's function calls and shows them as they run: `toolBatchResource`
 * (`agenttool/angular`) gives the batch as a resource whose value is each call's state. A person
 * steers single calls from their rows: Cancel (that call alone), Approve or Refuse before a call
 * that is not read-only takes a slot (when `askApproval` is set), and a tool's question answered
 * in a form.
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
import { ChangeDetectionStrategy, Component, computed, effect, input, output } from '@angular/core';
import {
  type CallState,
  type FunctionCallOutputItem,
  type OutputItem,
  type ToolSet,
} from 'agenttool';
import { toolBatchResource } from 'agenttool/angular';
import { QuestionFormComponent } from './question-form.component';

@Component({
  selector: 'app-tool-calls',
  imports: [QuestionFormComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p>
      {{ ended() }} of {{ batch.value().length }} calls ended
      <button data-action="cancel" (click)="batch.cancel()" [disabled]="!batch.running()">
        Cancel
      </button>
    </p>
    <table>
      @for (call of batch.value(); track call.callId) {
        <tr [attr.data-call-id]="call.callId" [attr.data-phase]="call.phase">
          <td class="name">{{ call.name }}</td>
          <td class="phase">{{ call.phase }}</td>
          <td>
            @if (fraction(call); as done) {
              <progress max="1" [value]="done" [attr.data-progress]="done"></progress>
            }
          </td>
          <td>
            @if (call.question; as question) {
              <app-question-form
                [question]="question"
                (answer)="batch.answer(call.index, $event)"
              />
            } @else {
              <span class="text">{{ call.message }}</span>
            }
          </td>
          <td class="elapsed">{{ call.elapsed }} ms</td>
          <td class="actions">
            @if (call.phase === 'approving') {
              <button data-action="approve" (click)="batch.decide(call.index, true)">
                Approve
              </button>
              <button data-action="refuse" (click)="batch.decide(call.index, false)">Refuse</button>
            }
            @if (!call.settled) {
              <button data-action="cancel-call" (click)="batch.cancelCall(call.index)">
                Cancel
              </button>
            }
          </td>
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
    tr[data-phase='approving'],
    tr[data-phase='asking'] {
      background: #fff8e6;
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

  constructor() {
    effect(() => {
      const items = this.batch.outputs();
      if (items !== undefined) this.outputs.emit(items);
    });
  }

  /** How far a call is, from 0 to 1, when its tool reports a total. */
  protected fraction(call: CallState): number | undefined {
    const info = call.progress;
    return info?.total ? info.progress / info.total : undefined;
  }
}
