/**
 * Runs a model turn's function calls and shows them as they run: the engine's events become each
 * call's state with `batchState`, and the states a signal with `toSignal`. A person steers single
 * calls from their rows: Cancel (the job's own `signal`), Approve or Refuse before a call that is
 * not read-only takes a slot (the engine's `approve` option, when `askApproval` is set), and a
 * tool's question answered in a form (the engine's `elicitor` option).
 *
 * ```html
 * <app-tool-calls [turn]="response.output" [tools]="tools" (outputs)="sendToModel($event)" />
 * ```
 *
 * A new `turn` (or `tools`) cancels the calls still running for the previous one (`switchMap`
 * unsubscribes), and so does destroying the component (`toSignal` unsubscribes). Cancel aborts the
 * batch's signal instead, so that every unfinished call still ends, with a CancelledError, and
 * `outputs` still emits the items the model needs to go on; a row's Cancel ends that call alone.
 */
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  input,
  output,
  signal,
  type WritableSignal,
} from '@angular/core';
import { toObservable, toSignal } from '@angular/core/rxjs-interop';
import { Observable, switchMap, tap } from 'rxjs';
import {
  batchState,
  CancelledError,
  executeBatchWithStarts,
  jobsFromItems,
  toOutputItems,
  type Approval,
  type CallState,
  type ElicitRequest,
  type ElicitResult,
  type FunctionCallOutputItem,
  type Job,
  type OutputItem,
  type ToolCall,
  type ToolSet,
} from 'agenttool';
import { QuestionFormComponent } from './question-form.component';

/** A person's answer the engine waits for, by job index. */
type Waiting<T> = ReadonlyMap<number, (value: T) => void>;

/** An answer to wait for: `waiting` holds its resolver until it is given or no longer wanted. */
function waitFor<T>(waiting: WritableSignal<Waiting<T>>, index: number): Observable<T> {
  return new Observable<T>((subscriber) => {
    const give = (value: T): void => {
      subscriber.next(value);
      subscriber.complete();
    };
    waiting.update((map) => new Map(map).set(index, give));
    return () =>
      waiting.update((map) => {
        const rest = new Map(map);
        rest.delete(index);
        return rest;
      });
  });
}

@Component({
  selector: 'app-tool-calls',
  imports: [QuestionFormComponent],
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
          <td>
            @if (call.question; as question) {
              <app-question-form [question]="question" (answer)="answer(call.index, $event)" />
            } @else {
              <span class="text">{{ call.message }}</span>
            }
          </td>
          <td class="elapsed">{{ call.elapsed }} ms</td>
          <td class="actions">
            @if (call.phase === 'approving') {
              <button data-action="approve" (click)="decide(call.index, true)">Approve</button>
              <button data-action="refuse" (click)="decide(call.index, false)">Refuse</button>
            }
            @if (!call.settled) {
              <button data-action="cancel-call" (click)="cancelCall(call.index)">Cancel</button>
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

  private controller = new AbortController();
  /** One per job of the current turn: aborting one cancels that call alone. */
  private callControllers: AbortController[] = [];
  /** The calls waiting for Approve or Refuse (`batchState` shows them `approving`). */
  private readonly approvals = signal<Waiting<Approval>>(new Map());
  /** The calls whose question is open. */
  private readonly questions = signal<Waiting<ElicitResult>>(new Map());

  /** The calls of the current turn, as they run. */
  readonly calls = toSignal(
    toObservable(
      computed(() => ({ items: this.turn(), tools: this.tools(), ask: this.askApproval() })),
    ).pipe(
      switchMap(({ items, tools, ask }) => {
        this.controller = new AbortController();
        this.callControllers = items.map(() => new AbortController());
        const jobs: Job[] = jobsFromItems(items, tools).map((job, i) => ({
          ...job,
          signal: this.callControllers[i]!.signal,
        }));
        const approve = (job: Job, index: number) =>
          job.tool.annotations?.readOnlyHint === true || waitFor(this.approvals, index);
        const elicitor = (_question: ElicitRequest, call: ToolCall) =>
          waitFor(
            this.questions,
            jobs.findIndex((job) => job.call.id === call.id),
          );
        let calls: readonly CallState[] = [];
        return executeBatchWithStarts(jobs, {
          signal: this.controller.signal,
          elicitor,
          ...(ask && { approve }),
        }).pipe(
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

  readonly running = computed(() => this.calls().some((call) => call.settled === undefined));
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

  /** Cancels call `index` alone: it ends with a CancelledError, the others go on. */
  cancelCall(index: number): void {
    this.callControllers[index]?.abort(new CancelledError('call cancelled by the user'));
  }

  /** Approves (true) or refuses (false) call `index`, which is waiting for it. */
  decide(index: number, approved: boolean): void {
    this.approvals().get(index)?.(approved);
  }

  /** Gives call `index`'s tool the answer to its question. */
  answer(index: number, result: ElicitResult): void {
    this.questions().get(index)?.(result);
  }
}
