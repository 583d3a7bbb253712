/**
 * The page: a model turn run over tools in the page, and one run over the tools of an MCP server
 * reached over Streamable HTTP (another origin, a bearer token). Each of those panels hands a turn
 * and a ToolSet to `<app-tool-calls>` and shows the function_call_output items it gives back. The
 * third, `<app-loop-chat>`, shows a conversation `agentLoop` drives on a server, over AG-UI.
 */
import { ChangeDetectionStrategy, Component, computed, signal } from '@angular/core';
import { rxResource } from '@angular/core/rxjs-interop';
import { map, Observable } from 'rxjs';
import { ToolSet, type FunctionCallOutputItem, type OutputItem } from 'agenttool';
import type { McpRemote } from 'agenttool/mcp/client';
import { PAGE_TURN, pageTools } from './page-tools';
import { LoopChatComponent } from './loop-chat.component';
import { ToolCallsComponent } from './tool-calls.component';

/** Calls of the tools `agenttool serve` offers: one with progress, one the server refuses. */
const REMOTE_TURN: readonly OutputItem[] = [
  {
    type: 'function_call',
    call_id: 'remote-count',
    name: 'slow_count',
    arguments: '{"to":5,"step_ms":120}',
  },
  { type: 'function_call', call_id: 'remote-bad', name: 'slow_count', arguments: '{"to":"five"}' },
];

/** The server the remote panel is asked to reach. */
interface Target {
  readonly url: string;
  readonly token: string;
}

/**
 * A connection to the server at `url`, closed when unsubscribed. The MCP client (the SDK's with
 * it) is loaded when the first connection is asked for, not with the page: the first load
 * carries none of it.
 */
function connection(url: string, token: string): Observable<McpRemote> {
  return new Observable<McpRemote>((subscriber) => {
    let remote: McpRemote | undefined;
    let closed = false;
    const headers = token === '' ? {} : { headers: { Authorization: `Bearer ${token}` } };
    import('agenttool/mcp/client')
      .then(({ connectMcp, httpTransport }) => connectMcp(httpTransport(url, headers)))
      .then(
        (opened) => {
          if (closed) void opened.close();
          else subscriber.next((remote = opened));
        },
        (err: unknown) => subscriber.error(err),
      );
    return () => {
      closed = true;
      void remote?.close();
    };
  });
}

@Component({
  selector: 'app-root',
  imports: [LoopChatComponent, ToolCallsComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <h1>agenttool in Angular</h1>
    <section data-panel="page">
      <h2>Tools in the page</h2>
      <button data-action="run-page" (click)="pageTurn.set([...turn])">Run the turn</button>
      @if (pageTurn(); as turn) {
        <app-tool-calls
          [turn]="turn"
          [tools]="pageTools"
          [askApproval]="true"
          (outputs)="pageOutputs.set($event)"
        />
      }
      <pre data-outputs>{{ pageOutputs() ? describe(pageOutputs()!) : '' }}</pre>
    </section>
    <section data-panel="remote">
      <h2>Tools of an MCP server</h2>
      <form (submit)="$event.preventDefault(); target.set({ url: url.value, token: token.value })">
        <label>Server <input #url name="url" size="36" value="http://127.0.0.1:3000/mcp" /></label>
        <label>Token <input #token name="token" type="password" /></label>
        <button data-action="connect">Connect and run</button>
      </form>
      <p [attr.data-remote-phase]="phase()">
        @switch (phase()) {
          @case ('connecting') {
            Connecting…
          }
          @case ('connected') {
            Connected: {{ remote.value()!.size }} tools.
          }
          @case ('failed') {
            Failed: {{ remote.error()?.message }}
          }
        }
      </p>
      @if (phase() === 'connected') {
        <app-tool-calls [turn]="remoteTurn" [tools]="remote.value()!" />
      }
    </section>
    <section data-panel="loop">
      <h2>A conversation over AG-UI</h2>
      <app-loop-chat />
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
    pre {
      white-space: pre-wrap;
      color: #444;
    }
  `,
})
export class AppComponent {
  protected readonly turn = PAGE_TURN;
  protected readonly remoteTurn = REMOTE_TURN;
  protected readonly pageTools = pageTools;
  /** The turn being run in the page; a new array runs it again. */
  protected readonly pageTurn = signal<readonly OutputItem[] | undefined>(undefined);
  protected readonly pageOutputs = signal<FunctionCallOutputItem[] | undefined>(undefined);
  /** The server asked for; asking again (a new object) reconnects. */
  protected readonly target = signal<Target | undefined>(undefined);

  /**
   * The tools of the server asked for, as a resource: loading while it connects, its value once
   * connected, its error if that failed. A new target closes the previous connection (the
   * resource unsubscribes its stream), and so does the component's end.
   */
  protected readonly remote = rxResource({
    params: () => this.target(),
    stream: ({ params }) =>
      connection(params.url, params.token).pipe(map((server) => new ToolSet(server.tools))),
  });

  /** What the remote panel shows, from the resource's state. */
  protected readonly phase = computed(() => {
    if (this.target() === undefined) return 'idle';
    if (this.remote.error() !== undefined) return 'failed';
    return this.remote.hasValue() ? 'connected' : 'connecting';
  });

  /** The output items as the model will read them: one line per call. */
  protected describe(items: readonly FunctionCallOutputItem[]): string {
    return items.map((item) => `${item.call_id}: ${JSON.stringify(item.output)}`).join('\n');
  }
}
