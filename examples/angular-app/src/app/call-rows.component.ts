/**
 * The rows of a batch's calls, drawn from a `toolBatchResource` that lives elsewhere: a view of
 * the batch, not its owner. Made at any time, it shows the batch as it is now (every open
 * question as a form, every pending approval with the call's arguments and its buttons, each
 * running call's time as it goes), because it reads the resource's value (the latest of
 * `batchState`'s states) rather than events that went by. What a person does in a row goes to
 * the resource, which gives it to the waiting call.
 *
 * ```html
 * <app-call-rows [batch]="batch" />
 * ```
 */
import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import type { CallState } from 'agenttool';
import type { ToolBatchResource } from 'agenttool/angular';
import { QuestionFormComponent } from './question-form.component';

@Component({
  selector: 'app-call-rows',
  imports: [QuestionFormComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <table>
      @for (call of batch().value(); track call.callId) {
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
                (answer)="batch().answer(call.index, $event)"
              />
            } @else if (call.phase === 'approving') {
              <span class="ask">Run {{ call.name }} with</span>
              <code class="args">{{ call.args }}</code>
            } @else {
              <span class="text">{{ call.message }}</span>
            }
          </td>
          <!-- call.elapsed ticks while the call runs (toolBatchResource's clock). -->
          <td class="elapsed" [attr.data-elapsed]="call.elapsed">{{ duration(call.elapsed) }}</td>
          <td class="actions">
            @if (call.phase === 'approving') {
              <button data-action="approve" (click)="batch().decide(call.index, true)">
                Approve
              </button>
              <button data-action="refuse" (click)="batch().decide(call.index, false)">
                Refuse
              </button>
            }
            @if (!call.settled) {
              <button data-action="cancel-call" (click)="batch().cancelCall(call.index)">
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
      font-variant-numeric: tabular-nums;
    }
    .args {
      margin-left: 0.4em;
      word-break: break-all;
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
export class CallRowsComponent {
  /** The batch to show and steer; it runs whether or not a view shows it. */
  readonly batch = input.required<ToolBatchResource>();

  /** A call's time as a person reads it: `850 ms` under a second, `4.2 s` above. */
  protected duration(ms: number): string {
    return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  }

  /** How far a call is, from 0 to 1, when its tool reports a total. */
  protected fraction(call: CallState): number | undefined {
    const info = call.progress;
    return info?.total ? info.progress / info.total : undefined;
  }
}
