/**
 * A conversation driven by `agentLoop` on a server (examples/angular-app/loop-server.ts), read
 * over AG-UI: the model's text, each call with its progress and result, the approvals asked
 * (answered with `POST /approve`) and the tools' questions (answered with `POST /answer` under the
 * question's id). The events are read with `fetch` and applied here, a few lines for the events
 * the loop sends: `@ag-ui/client`'s HttpAgent (which test/angular/example-angular-loop-server.test.ts
 * reads the same server with) took the page past its 500 kB initial budget, even loaded lazily.
 */
import { ChangeDetectionStrategy, Component, signal } from '@angular/core';

/** What the page keeps of the thread: AG-UI's messages, as the client's reducer leaves them. */
interface ThreadMessage {
  readonly id: string;
  readonly role: string;
  readonly content?: unknown;
  readonly toolCallId?: string;
  readonly toolCalls?: readonly { id: string; function: { name: string; arguments: string } }[];
}

/** A call's last progress (`agenttool.progress` activity). */
interface Progress {
  readonly toolCallId: string;
  readonly text: string;
  readonly progress?: number;
  readonly total?: number;
}

/** An approval or a question still waiting for the person. */
interface Waiting {
  readonly kind: 'approval' | 'question';
  /** The call id for an approval, the question's wire id for a question. */
  readonly id: string;
  readonly toolName: string;
  readonly text: string;
  /** The choices of the question's fields: field name, then its values. */
  readonly fields: readonly { name: string; choices: readonly string[] }[];
}

@Component({
  selector: 'app-loop-chat',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form (submit)="$event.preventDefault(); start(url.value)">
      <label>Server <input #url name="loop-url" size="36" [value]="defaultUrl" /></label>
      <button data-action="start-loop" [disabled]="phase() === 'running'">Start</button>
    </form>
    <p [attr.data-loop-phase]="phase()">{{ status() }}</p>
    @for (message of messages(); track message.id) {
      <div class="message" [attr.data-role]="message.role" [attr.data-id]="message.id">
        @if (message.role === 'tool') {
          <span class="result" [attr.data-call-id]="message.toolCallId">{{ message.content }}</span>
        } @else {
          @if (message.content) {
            <p class="text">{{ message.content }}</p>
          }
          @for (call of message.toolCalls ?? []; track call.id) {
            <div class="call" [attr.data-call-id]="call.id">
              <code>{{ call.function.name }}({{ call.function.arguments }})</code>
              @if (progress()[call.id]; as p) {
                <progress
                  [attr.data-progress]="p.progress"
                  [value]="p.progress ?? 0"
                  [max]="p.total ?? 1"
                ></progress>
                <span class="progress-text">{{ p.text }}</span>
              }
            </div>
          }
        }
      </div>
    }
    @for (item of waiting(); track item.id) {
      <form
        class="waiting"
        [attr.data-waiting]="item.kind"
        [attr.data-id]="item.id"
        (submit)="$event.preventDefault()"
      >
        <span class="ask">{{ item.text }}</span>
        @if (item.kind === 'approval') {
          <button data-action="approve" (click)="approve(item.id, true)">Approve</button>
          <button data-action="refuse" (click)="approve(item.id, false)">Refuse</button>
        } @else {
          @for (field of item.fields; track field.name) {
            <select #choice [attr.name]="field.name">
              @for (value of field.choices; track value) {
                <option [value]="value">{{ value }}</option>
              }
            </select>
            <button data-answer="accept" (click)="answer(item.id, field.name, choice.value)">
              Answer
            </button>
          }
        }
      </form>
    }
  `,
  styles: `
    .message {
      margin: 0.5em 0;
    }
    .result {
      color: #255;
    }
  `,
})
export class LoopChatComponent {
  protected readonly defaultUrl = 'http://127.0.0.1:4300/agui';
  protected readonly phase = signal<'idle' | 'running' | 'done' | 'failed'>('idle');
  protected readonly status = signal('');
  protected readonly messages = signal<readonly ThreadMessage[]>([]);
  protected readonly progress = signal<Readonly<Record<string, Progress>>>({});
  protected readonly waiting = signal<readonly Waiting[]>([]);
  private base: URL | undefined;

  /** Runs the conversation the server at `url` holds, showing it as it streams. */
  protected async start(url: string): Promise<void> {
    this.base = new URL(url);
    this.phase.set('running');
    this.status.set('Running…');
    this.messages.set([]);
    this.progress.set({});
    this.waiting.set([]);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          threadId: 'page',
          runId: `run-${Date.now()}`,
          messages: [],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
        }),
      });
      if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
      let reason = 'done';
      for await (const event of sseEvents(response.body)) {
        if (event['type'] === 'RUN_FINISHED')
          reason = (event['result'] as { reason?: string } | undefined)?.reason ?? reason;
        if (event['type'] === 'RUN_ERROR') throw new Error(String(event['message']));
        this.apply(event);
      }
      this.phase.set('done');
      this.status.set(`Finished: ${reason}`);
    } catch (error) {
      this.phase.set('failed');
      this.status.set(`Failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** One AG-UI event applied to what the page shows. */
  private apply(event: Record<string, unknown>): void {
    const e = event as Record<string, string> & { content?: unknown; value?: unknown };
    switch (event['type']) {
      case 'TEXT_MESSAGE_START':
        return this.upsert(e['messageId']!, (m) => m ?? { id: e['messageId']!, role: 'assistant' });
      case 'TEXT_MESSAGE_CONTENT':
        return this.upsert(e['messageId']!, (m) => ({
          ...m!,
          content: `${(m?.content as string | undefined) ?? ''}${e['delta']}`,
        }));
      case 'TOOL_CALL_START':
        return this.upsert(e['parentMessageId']!, (m) => ({
          ...(m ?? { id: e['parentMessageId']!, role: 'assistant' }),
          toolCalls: [
            ...(m?.toolCalls ?? []),
            { id: e['toolCallId']!, function: { name: e['toolCallName']!, arguments: '' } },
          ],
        }));
      case 'TOOL_CALL_ARGS':
        return this.messages.update((all) =>
          all.map((m) => ({
            ...m,
            ...(m.toolCalls && {
              toolCalls: m.toolCalls.map((c) =>
                c.id === e['toolCallId']
                  ? {
                      ...c,
                      function: { ...c.function, arguments: c.function.arguments + e['delta'] },
                    }
                  : c,
              ),
            }),
          })),
        );
      case 'TOOL_CALL_RESULT':
        return this.upsert(e['messageId']!, () => ({
          id: e['messageId']!,
          role: 'tool',
          toolCallId: e['toolCallId']!,
          content: e.content,
        }));
      case 'ACTIVITY_SNAPSHOT': {
        const content = e.content as Progress;
        return this.progress.update((all) => ({ ...all, [content.toolCallId]: content }));
      }
      case 'CUSTOM':
        return this.custom(e['name']!, e.value);
    }
  }

  /** Changes the message `id`, or adds it at the end. */
  private upsert(id: string, change: (message: ThreadMessage | undefined) => ThreadMessage): void {
    this.messages.update((all) => {
      const at = all.findIndex((m) => m.id === id);
      if (at === -1) return [...all, change(undefined)];
      return all.map((m, i) => (i === at ? change(m) : m));
    });
  }

  protected approve(callId: string, approved: boolean): void {
    this.send('approve', { callId, approved });
  }

  protected answer(id: string, field: string, value: string): void {
    this.send('answer', { id, answer: { action: 'accept', content: { [field]: value } } });
  }

  /** An approval or a question asked (added to what waits) or answered (taken away). */
  private custom(name: string, value: unknown): void {
    const v = value as {
      toolCallId: string;
      toolName: string;
      arguments?: string;
      id?: string;
      answer?: unknown;
      question?: { message: string; schema?: { properties?: Record<string, { enum?: string[] }> } };
    };
    const kind =
      name === 'agenttool.approval'
        ? 'approval'
        : name === 'agenttool.question'
          ? 'question'
          : undefined;
    if (kind === undefined) return;
    const id = kind === 'approval' ? v.toolCallId : v.id!;
    if (v.answer !== undefined) {
      this.waiting.update((all) => all.filter((w) => w.id !== id));
      return;
    }
    const properties = v.question?.schema?.properties ?? {};
    const fields = Object.entries(properties).map(([field, schema]) => ({
      name: field,
      choices: schema.enum ?? [],
    }));
    const text =
      kind === 'approval'
        ? `Run ${v.toolName}(${v.arguments ?? ''})?`
        : (v.question?.message ?? '');
    this.waiting.update((all) => [...all, { kind, id, toolName: v.toolName, text, fields }]);
  }

  private send(path: string, body: unknown): void {
    if (this.base === undefined) return;
    void fetch(new URL(path, this.base), { method: 'POST', body: JSON.stringify(body) });
  }
}

/** The JSON events of a server-sent events body (`data: <JSON>` and a blank line each). */
async function* sseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<Record<string, unknown>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    buffer += decoder.decode(next.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '') yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}
