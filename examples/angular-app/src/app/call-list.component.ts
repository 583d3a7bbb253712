/** A table of calls: name, phase, a progress bar when the tool reports numbers, and the text. */
import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import type { CallRow } from './call-rows';

@Component({
  selector: 'app-call-list',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <table>
      @for (call of calls(); track call.callId) {
        <tr [attr.data-call-id]="call.callId" [attr.data-phase]="call.phase">
          <td class="name">{{ call.name }}</td>
          <td class="phase">{{ call.phase }}</td>
          <td>
            @if (call.progress !== undefined) {
              <progress
                max="1"
                [value]="call.progress"
                [attr.data-progress]="call.progress"
              ></progress>
            }
          </td>
          <td class="text">{{ call.text }}</td>
        </tr>
      } @empty {
        <tr>
          <td>No calls yet.</td>
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
export class CallListComponent {
  readonly calls = input.required<readonly CallRow[]>();
}
