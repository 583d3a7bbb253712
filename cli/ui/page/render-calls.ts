/**
 * The table of calls: one row per call with its name, arguments, state, progress bar or last
 * progress message, elapsed time, output, and a button to cancel it (red: the call stops); while
 * the call waits for a person, how long it has waited, Approve and Refuse buttons (outlined:
 * the model is told no), and while its tool asks a question, the question's form (see
 * render-question.ts) in its output cell. Once a person decided, the decision shows under the
 * arguments with the wait, the note and the corrected arguments. Rows are built once per run and
 * updated in place.
 *
 * Stable hooks: `tr[data-call-index][data-phase]`, `.bar[data-progress]` (the fraction done, when
 * the tool reports a total), `button[data-action="cancel-call|approve-call|refuse-call"]
 * [data-call-index]`, `tr[data-awaits="approval|answer"]` while a call waits for either,
 * `.waiting[data-waiting-ms]` while it waits for approval, `[data-decision="approved|refused"]`
 * once decided.
 *
 * @module
 */
import type { CallRow } from '../../call-state.js';
import type { Review } from '../page-state.js';
import { elapsed, seconds } from '../../views/format.js';
import type { ElicitRequest, ToolOutput } from '../../../index.js';
import { element, setAttr, setStyle, setText, setTitle } from './dom.js';
import { renderOutput } from './render-output.js';
import { questionForm } from './render-question.js';

interface RowView {
  tr: HTMLTableRowElement;
  badge: HTMLElement;
  bar: HTMLElement;
  fill: HTMLElement;
  message: HTMLElement;
  time: HTMLElement;
  result: HTMLElement;
  asking: HTMLElement;
  cancel: HTMLButtonElement;
  approve: HTMLButtonElement;
  refuse: HTMLButtonElement;
  /** The person's note beside approve and refuse. */
  note: HTMLInputElement;
  /** How long the call has waited for approval. */
  waiting: HTMLElement;
  /** What `result` shows, so it is rebuilt only when it changes. */
  shown: ToolOutput | Error | string | undefined;
  /** The question `asking` shows, so its form is rebuilt (and its input lost) only when it changes. */
  question: ElicitRequest | undefined;
  /** Where the call's trace link goes, once it has one, and the trace it shows. */
  trace: HTMLElement;
  traced: string | undefined;
  /** What the person's decision added (note, corrected arguments), and the review it shows. */
  review: HTMLElement;
  reviewed: Review | undefined;
}

/** What a person is asked about the calls, by index, and where their traces are. */
export interface Asked {
  approvals: ReadonlySet<number>;
  /** When each call of `approvals` was asked about, in batch time. */
  waitingSince: ReadonlyMap<number, number>;
  questions: ReadonlyMap<number, ElicitRequest>;
  /** Each call's span, when the command traces (`--otlp`). */
  traces: ReadonlyMap<number, { traceId: string; spanId: string }>;
  /** What a person's decision added to each call: a note, corrected arguments. */
  reviews: ReadonlyMap<number, Review>;
  /** Where a trace is shown: a URL with `{traceId}` and `{spanId}`; undefined for none. */
  traceUrl: string | undefined;
}

/**
 * The call's trace: a link to it where `--trace-url` says traces are shown, else its id alone
 * (`[data-trace-id]` either way).
 */
function traceLink(
  span: { traceId: string; spanId: string },
  url: string | undefined,
): HTMLElement {
  const text = `trace ${span.traceId.slice(0, 8)}`;
  const href =
    url === undefined
      ? undefined
      : url.replaceAll('{traceId}', span.traceId).replaceAll('{spanId}', span.spanId);
  const linked = href !== undefined && /^https?:\/\//.test(href);
  const link = element(linked ? 'a' : 'span', 'trace', text);
  link.dataset.traceId = span.traceId;
  setTitle(link, `trace ${span.traceId}, span ${span.spanId}`);
  if (linked) {
    const a = link as HTMLAnchorElement;
    a.href = href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
  }
  return link;
}

function actionButton(
  action: string,
  index: number,
  text: string,
  className: string,
  title: string,
): HTMLButtonElement {
  const button = element('button', className, text);
  button.type = 'button';
  setTitle(button, title);
  button.dataset.action = action;
  button.dataset.callIndex = String(index);
  return button;
}

/** The resource chain a call is in, in words (the terminal's ⛓ is missing from many fonts). */
function chain(row: CallRow): string {
  if (row.resource === '') return '';
  return row.after >= 0 ? `${row.resource}, after #${row.after}` : row.resource;
}

function buildRow(row: CallRow): RowView {
  const tr = element('tr', 'call');
  tr.dataset.callIndex = String(row.index);
  const name = element('td', 'name');
  const trace = element('div', 'trace-of');
  name.append(element('div', 'tool', row.name), element('div', 'chain', chain(row)), trace);
  const args = element('td', 'args');
  const code = element('code', '', row.args === '' ? '{}' : row.args);
  setTitle(code, row.args);
  const review = element('div', 'review');
  args.append(code, review);
  const badge = element('span', 'badge');
  const bar = element('div', 'bar');
  const fill = element('div', 'fill');
  bar.append(fill);
  const message = element('div', 'message');
  // Refuse answers the model (the call fails with "not approved"); Cancel stops the call.
  const cancel = actionButton('cancel-call', row.index, 'Cancel', 'cancel', 'Stop this call');
  const approve = actionButton('approve-call', row.index, 'Approve', 'approve', 'Run this call');
  const refuse = actionButton('refuse-call', row.index, 'Refuse', 'refuse', 'Tell the model no');
  const waiting = element('div', 'waiting');
  // What the person writes here goes to the model with the call's outcome (docs/people.md).
  const note = element('input', 'note');
  note.type = 'text';
  note.placeholder = 'Note for the model';
  note.maxLength = 4000;
  note.dataset.noteFor = String(row.index);
  note.setAttribute('aria-label', `Note on call #${row.index}`);
  const result = element('div', 'result');
  const asking = element('div', 'asking');
  const cells = [
    element('td', 'index', `#${row.index}`),
    name,
    args,
    element('td', 'state'),
    element('td', 'progress'),
    element('td', 'time'),
    element('td', 'output'),
    element('td', 'row-actions'),
  ];
  cells[3]!.append(badge);
  cells[4]!.append(bar, message);
  cells[6]!.append(asking, result);
  cells[7]!.append(waiting, note, approve, refuse, cancel);
  tr.append(...cells);
  return {
    tr,
    badge,
    bar,
    fill,
    message,
    time: cells[5]!,
    result,
    asking,
    cancel,
    approve,
    refuse,
    note,
    waiting,
    shown: '',
    question: undefined,
    trace,
    traced: undefined,
    review,
    reviewed: undefined,
  };
}

/**
 * A decision's review under the call's arguments: the decision and how long it took
 * (`[data-decision]`), the arguments the call ran with, when the person corrected them
 * (`[data-edited-args]`), and their note (`[data-review-note]`).
 */
function reviewParts(review: Review): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (review.decision !== undefined) {
    const after = review.waited === undefined ? '' : ` after ${seconds(review.waited)}`;
    const decided = element('div', 'decision', `${review.decision}${after}`);
    decided.dataset.decision = review.decision;
    parts.push(decided);
  }
  if (review.args !== undefined) {
    const edited = element('div', 'edited', 'edited: ');
    const code = element('code', '', review.args);
    setTitle(code, review.args);
    edited.append(code);
    edited.dataset.editedArgs = review.args;
    parts.push(edited);
  }
  if (review.note !== undefined) {
    const note = element('div', 'review-note', `note: ${review.note}`);
    note.dataset.reviewNote = review.note;
    parts.push(note);
  }
  return parts;
}

function updateRow(
  view: RowView,
  row: CallRow,
  now: number,
  live: boolean,
  running: boolean,
  asked: Asked,
): void {
  setAttr(view.tr, 'data-phase', row.phase);
  const question = asked.questions.get(row.index);
  const approval = asked.approvals.has(row.index);
  setAttr(
    view.tr,
    'data-awaits',
    question !== undefined ? 'answer' : approval ? 'approval' : undefined,
  );
  if (question !== view.question) {
    view.question = question;
    // A replay shows what was asked, with nothing to answer.
    view.asking.replaceChildren(
      ...(question === undefined
        ? []
        : [live ? questionForm(row.index, question) : element('p', 'ask', question.message)]),
    );
  }
  view.approve.hidden = view.refuse.hidden = view.note.hidden = !approval || !live;
  const since = asked.waitingSince.get(row.index);
  const waited = since === undefined ? undefined : Math.max(0, Math.round(now - since));
  setAttr(view.waiting, 'data-waiting-ms', waited === undefined ? undefined : String(waited));
  setText(view.waiting, waited === undefined ? '' : `waiting ${seconds(waited)}`);
  view.waiting.hidden = waited === undefined;
  const review = asked.reviews.get(row.index);
  if (review !== view.reviewed) {
    view.reviewed = review;
    view.review.replaceChildren(...(review === undefined ? [] : reviewParts(review)));
  }
  const span = asked.traces.get(row.index);
  if (span !== undefined && span.traceId !== view.traced) {
    view.traced = span.traceId;
    view.trace.replaceChildren(traceLink(span, asked.traceUrl));
  }
  setText(view.badge, row.phase);
  const info = row.progress;
  const total = info?.total;
  if (info !== undefined && total !== undefined && total > 0) {
    const ratio = Math.min(1, Math.max(0, info.progress / total));
    view.bar.hidden = false;
    setAttr(view.bar, 'data-progress', ratio.toFixed(3));
    setAttr(view.bar, 'title', `${info.progress} of ${total}`);
    setStyle(view.fill, 'width', `${(ratio * 100).toFixed(1)}%`);
  } else {
    view.bar.hidden = true;
    setAttr(view.bar, 'data-progress', undefined);
  }
  const counted = info !== undefined && total === undefined ? `(${info.progress}) ` : '';
  setText(view.message, row.phase === 'waiting' || row.endedAt >= 0 ? '' : counted + row.message);
  setText(view.time, elapsed(row, now));
  const shown = row.error ?? row.output;
  if (shown !== view.shown) {
    view.shown = shown;
    view.result.replaceChildren(
      ...(row.error !== undefined
        ? [element('pre', 'error', row.error.message)]
        : row.output === undefined
          ? []
          : renderOutput(row.output)),
    );
  }
  view.cancel.hidden = !live;
  view.cancel.disabled = !running || row.endedAt >= 0;
}

/** Keeps `tbody` showing `rows`: builds the rows on a new run, then updates them in place. */
export class CallsTable {
  private views: RowView[] = [];
  private run = -1;

  constructor(private readonly tbody: HTMLElement) {}

  /**
   * Shows `rows` of run number `run` at batch time `now`. The cancel buttons show in `live` mode
   * only, and are enabled for the unfinished calls of a `running` batch; the approve and refuse
   * buttons and the question forms show for the calls `asked` names, in `live` mode only (a
   * replay shows a question's message alone).
   */
  render(
    run: number,
    rows: readonly CallRow[],
    now: number,
    live: boolean,
    running: boolean,
    asked: Asked,
  ): void {
    if (run !== this.run || rows.length !== this.views.length) {
      this.run = run;
      this.views = rows.map(buildRow);
      this.tbody.replaceChildren(...this.views.map((view) => view.tr));
    }
    rows.forEach((row, i) => updateRow(this.views[i]!, row, now, live, running, asked));
  }
}
