/**
 * A tool's question asked on the terminal: the message, then one prompt per field, read line by
 * line from stdin while the live rows wait below.
 *
 * @module
 */
import { createInterface, type Interface } from 'node:readline';
import { Observable } from 'rxjs';
import {
  elicitUrlView,
  type ElicitRequest,
  type ElicitResult,
  type ElicitUrlRequest,
} from '../../index.js';
import { fieldPrompt, parseField, type FieldValue } from './form-field.js';
import { visible } from './visible.js';

/** What the form needs of the view it shows above: to stop drawing while it asks. */
export interface Holdable {
  /** Clears the rows and stops drawing them until `resume`. */
  pause(): void;
  /** Draws the rows again, below what the form wrote. */
  resume(): void;
}

const DECLINE: ElicitResult = { action: 'decline' };
const CANCEL: ElicitResult = { action: 'cancel' };
const BACK: ElicitResult = { action: 'accept', content: {} };

/**
 * Asks questions on a terminal, one at a time (a question asked while another is open waits its
 * turn). Each field shows its label, choices and default; Enter keeps the default; a value that
 * does not fit is refused with a one-line reason and asked again. A URL question shows its page
 * and waits for Enter once the person is back. `/decline` at any field declines
 * the question, `/cancel` or the end of input (Ctrl-D) cancels it. Typing is echoed by the
 * terminal itself (its line mode is left alone), so Ctrl-C still interrupts the run.
 */
export class TerminalForm {
  private reader: Interface | undefined;
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly out: NodeJS.WritableStream,
    private readonly view: Holdable,
  ) {}

  /**
   * The question as an Observable answer, for an elicitor: asked when subscribed, in turn; the
   * form is closed (`question closed`) when unsubscribed before the answer, as when its call ends.
   */
  ask(request: ElicitRequest, asker: string): Observable<ElicitResult> {
    return new Observable<ElicitResult>((subscriber) => {
      const controller = new AbortController();
      const asked = this.turn.then(() =>
        controller.signal.aborted ? CANCEL : this.fill(request, asker, controller.signal),
      );
      this.turn = asked.catch(() => undefined);
      asked.then((answer) => {
        subscriber.next(answer);
        subscriber.complete();
      }, subscriber.error.bind(subscriber));
      return () => controller.abort();
    });
  }

  /** Stops reading stdin, so the process can exit. */
  close(): void {
    this.reader?.close();
  }

  private async fill(request: ElicitRequest, asker: string, signal: AbortSignal) {
    this.view.pause();
    try {
      if (request.mode === 'url') return await this.visit(request, asker, signal);
      this.out.write(
        `${visible(`? ${asker} asks: ${request.message}`)}\n` +
          `  (Enter keeps the [default]; /decline to decline, /cancel to dismiss)\n`,
      );
      const content: Record<string, FieldValue> = {};
      const required = new Set(request.schema.required ?? []);
      for (const [name, field] of Object.entries(request.schema.properties)) {
        for (;;) {
          this.out.write(fieldPrompt(name, field, required.has(name)));
          const typed = await this.answerLine(signal, '\n');
          if (typeof typed !== 'string') return typed;
          const parsed = parseField(field, typed, required.has(name));
          if ('error' in parsed) {
            this.out.write(`  ${parsed.error}\n`);
            continue;
          }
          if (parsed.value !== undefined) content[name] = parsed.value;
          break;
        }
      }
      return { action: 'accept', content } satisfies ElicitResult;
    } finally {
      this.view.resume();
    }
  }

  /**
   * A URL question: the message, the full URL on a line of its own and its host set apart (with a
   * warning for plain http: or a punycode host), never opened by agenttool: the person opens it
   * (most terminals make it a link) and presses Enter once back, which accepts.
   */
  private async visit(request: ElicitUrlRequest, asker: string, signal: AbortSignal) {
    const page = elicitUrlView(request);
    const warnings = [
      page.insecure ? '  ! not encrypted (http:)\n' : '',
      page.punycode ? '  ! the host is spelt in punycode: it may imitate another\n' : '',
    ].join('');
    this.out.write(
      `${visible(`? ${asker} asks you to visit a page: ${request.message}`)}\n` +
        `  ${visible(page.url)}\n` +
        `  host: ${visible(page.host)}\n${warnings}` +
        `  (open it yourself if you agree; Enter once you are back, /decline to decline, /cancel to dismiss)\n`,
    );
    const typed = await this.answerLine(signal, '');
    return typeof typed === 'string' ? BACK : typed;
  }

  /**
   * The next line typed, trimmed; or the answer it stands for: `/decline` declines, `/cancel` or
   * the end of input cancels, as does the call's end (said on the terminal, after `before`).
   */
  private async answerLine(signal: AbortSignal, before: string): Promise<string | ElicitResult> {
    const line = await this.nextLine(signal);
    if (line === undefined) {
      this.out.write(signal.aborted ? `${before}  (question closed: the call ended)\n` : '\n');
      return CANCEL;
    }
    const typed = line.trim();
    if (typed === '/decline') return DECLINE;
    if (typed === '/cancel') return CANCEL;
    return typed;
  }

  /** The next line typed; undefined at the end of input or when `signal` aborts. */
  private nextLine(signal: AbortSignal): Promise<string | undefined> {
    this.open();
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift());
    if (this.ended || signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.waiting = undefined;
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = (line) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        resolve(line);
      };
    });
  }

  private open(): void {
    if (this.reader !== undefined) return;
    this.reader = createInterface({ input: this.input, terminal: false });
    this.reader.on('line', (line) => {
      if (this.waiting !== undefined) this.waiting(line);
      else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      this.waiting?.(undefined);
    });
  }
}
