/**
 * The page: a model turn run over tools in the page, and a call of an MCP server's tools over
 * Streamable HTTP. Each batch is an Observable of rows, made a signal by `toSignal`; a new run
 * replaces the previous one (`switchMap` unsubscribes, which cancels its calls).
 */
import { ChangeDetectionStrategy, Component, computed } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { catchError, defer, finalize, map, of, startWith, Subject, switchMap } from 'rxjs';
import { jobsFromItems, ToolSet, type OutputItem } from 'agenttool';
import { connectMcp, httpTransport } from 'agenttool/mcp/client';
import { CallListComponent } from './call-list.component';
import { callRows, type CallRow } from './call-rows';
import { countTo, greet, PAGE_TURN, wait } from './page-tools';

const PAGE_TOOLS = new ToolSet([countTo, wait, greet]);

/** What the remote panel shows. */
interface RemoteView {
  readonly phase: 'idle' | 'connecting' | 'connected' | 'failed';
  readonly tools: readonly string[];
  readonly calls: readonly CallRow[];
  readonly error?: string;
}

/** The remote server's calls: one with progress, one the server's schema refuses. */
const REMOTE_TURN: readonly OutputItem[] = [
  {
    type: 'function_call',
    call_id: 'remote-count',
    name: 'slow_count',
    arguments: '{"to":5,"step_ms":120}',
  },
  { type: 'function_call', call_id: 'remote-bad', name: 'slow_count', arguments: '{"to":"five"}' },
];

const busy = (calls: readonly CallRow[]): boolean =>
  calls.some((call) => call.phase === 'waiting' || call.phase === 'running');

@Component({
  selector: 'app-root',
  imports: [CallListComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <h1>agenttool in Angular</h1>
    <section data-panel="page">
      <h2>Tools in the page</h2>
      <button data-action="run-page" (click)="pageRuns.next()" [disabled]="pageBusy()">
        Run the turn
      </button>
      <button data-action="cancel-page" (click)="controller.abort()" [disabled]="!pageBusy()">
        Cancel
      </button>
      <app-call-list [calls]="pageCalls()" />
    </section>
    <section data-panel="remote">
      <h2>Tools of an MCP server</h2>
      <form
        (submit)="$event.preventDefault(); remoteRuns.next({ url: url.value, token: token.value })"
      >
        <label>Server <input #url name="url" size="36" value="http://127.0.0.1:3000/mcp" /></label>
        <label>Token <input #token name="token" type="password" /></label>
        <button data-action="connect" [disabled]="remote().phase === 'connecting'">
          Connect and call
        </button>
      </form>
      <p [attr.data-remote-phase]="remote().phase">
        @switch (remote().phase) {
          @case ('connecting') {
            Connecting…
          }
          @case ('connected') {
            Connected: {{ remote().tools.length }} tools.
          }
          @case ('failed') {
            Failed: {{ remote().error }}
          }
        }
      </p>
      <app-call-list [calls]="remote().calls" />
    </section>
  `,
  styles: `
    :host {
      display: block;
      font-family: system-ui, sans-serif;
      max-width: 60em;
      margin: 1em auto;
    }
    section {
      margin-bottom: 2em;
    }
  `,
})
export class AppComponent {
  /** Aborted by Cancel: every unfinished call of the page's batch ends as cancelled. */
  protected controller = new AbortController();
  protected readonly pageRuns = new Subject<void>();
  protected readonly remoteRuns = new Subject<{ url: string; token: string }>();

  readonly pageCalls = toSignal(
    this.pageRuns.pipe(
      switchMap(() => {
        this.controller = new AbortController();
        return callRows(jobsFromItems(PAGE_TURN, PAGE_TOOLS), this.controller.signal);
      }),
    ),
    { initialValue: [] },
  );
  readonly pageBusy = computed(() => busy(this.pageCalls()));

  readonly remote = toSignal(
    this.remoteRuns.pipe(
      switchMap(({ url, token }) =>
        defer(() =>
          connectMcp(
            httpTransport(
              url,
              token === '' ? {} : { headers: { Authorization: `Bearer ${token}` } },
            ),
          ),
        ).pipe(
          switchMap((server) => {
            const tools = new ToolSet(server.tools);
            return callRows(jobsFromItems(REMOTE_TURN, tools)).pipe(
              map((calls): RemoteView => ({
                phase: 'connected',
                tools: server.tools.map((t) => t.name),
                calls,
              })),
              finalize(() => void server.close()),
            );
          }),
          startWith<RemoteView>({ phase: 'connecting', tools: [], calls: [] }),
          catchError((err: unknown) =>
            of<RemoteView>({
              phase: 'failed',
              tools: [],
              calls: [],
              error: err instanceof Error ? err.message : String(err),
            }),
          ),
        ),
      ),
    ),
    { initialValue: { phase: 'idle', tools: [], calls: [] } as RemoteView },
  );
}
