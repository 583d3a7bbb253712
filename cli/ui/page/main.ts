/**
 * The web front's page: the server's event stream folded into state with `scan` (the CLI's own
 * reducer underneath), drawn once per animation frame while anything changes or runs; the buttons
 * (run, cancel, approve, refuse) are clicks turned into POSTs, and a question's form is a POST of
 * its answer.
 *
 * @module
 */
import {
  animationFrames,
  combineLatest,
  concat,
  filter,
  fromEvent,
  map,
  merge,
  mergeMap,
  of,
  scan,
  share,
  switchMap,
  timer,
} from 'rxjs';
import { seconds } from '../../views/format.js';
import {
  applyRecord,
  batchNow,
  emptyPageState,
  phaseCounts,
  type PageState,
} from '../page-state.js';
import { required, setAttr, setText } from './dom.js';
import { postAction } from './post-action.js';
import { formContent } from './render-question.js';
import { CallsTable } from './render-calls.js';
import { Timeline } from './render-timeline.js';
import { serverEvents } from './server-events.js';

const NOTICE_MS = 6000;

const source = required('[data-source]');
const mode = required('[data-mode]');
const summary = required('[data-batch-phase]');
const status = required('[data-status]');
const counts = required('[data-counts]');
const clock = required('[data-clock]');
const runButton = required<HTMLButtonElement>('[data-action="run"]');
const cancelButton = required<HTMLButtonElement>('[data-action="cancel-batch"]');
const notice = required('[data-notice]');
const calls = new CallsTable(required('[data-rows]'));
const timeline = new Timeline(required('[data-timeline]'), required('[data-axis]'));

// The server's token, which it wrote into the page: the stream and the actions need it.
const token = encodeURIComponent(
  document.querySelector<HTMLMetaElement>('meta[name="agenttool-token"]')?.content ?? '',
);

const state$ = serverEvents(`events?token=${token}`).pipe(
  map((record) => ({ record, receivedAt: performance.now() })),
  scan(applyRecord, emptyPageState()),
  share(),
);

function statusText(state: PageState): string {
  if (!state.connected) return state.version === 0 ? 'connecting…' : 'disconnected, reconnecting…';
  if (state.phase === 'running') return state.mode === 'live' ? 'running' : 'replaying';
  if (state.phase === 'finished') return 'finished';
  return state.batch === undefined ? 'waiting for the turn' : 'ready';
}

function render(state: PageState, now: number): void {
  const live = state.mode === 'live';
  const running = state.phase === 'running';
  const rows = state.batch?.rows ?? [];
  setText(source, state.title);
  setText(mode, state.mode);
  setAttr(summary, 'data-batch-phase', state.phase);
  setText(status, statusText(state));
  const count = phaseCounts(state);
  setText(
    counts,
    (['done', 'failed', 'cancelled', 'asking', 'running', 'approving', 'waiting'] as const)
      .filter((phase) => count[phase] > 0)
      .map((phase) => `${count[phase]} ${phase}`)
      .join(' · '),
  );
  setText(clock, state.phase === 'idle' ? '' : seconds(now));
  setText(runButton, `${live ? 'Run' : 'Replay'} ${state.phase === 'idle' ? 'the turn' : 'again'}`);
  runButton.disabled = running || !state.connected;
  cancelButton.hidden = !live;
  cancelButton.disabled = !running;
  calls.render(state.run, rows, now, live, running, state);
  timeline.render(state.run, rows, now, running);
}

// Each frame draws the latest state, unless nothing changed and nothing runs.
let drawn = -1;
combineLatest([state$, animationFrames()]).subscribe(([state, frame]) => {
  if (state.version === drawn && state.phase !== 'running') return;
  drawn = state.version;
  render(state, batchNow(state, frame.timestamp));
});

/** A POST the page makes: its path (without the token) and its JSON body, if any. */
interface Action {
  path: string;
  body?: unknown;
}

function buttonAction(button: HTMLButtonElement): Action {
  switch (button.dataset.action) {
    case 'run':
      return { path: 'run' };
    case 'cancel-batch':
      return { path: 'cancel' };
    case 'approve-call':
      return decision(button, 'approve');
    case 'refuse-call':
      return decision(button, 'refuse');
    default:
      return { path: `calls/${button.dataset.callIndex}/cancel` };
  }
}

/** Approve or refuse, with the note the person wrote in the call's row, if any. */
function decision(button: HTMLButtonElement, verb: 'approve' | 'refuse'): Action {
  const index = button.dataset.callIndex;
  const input = document.querySelector<HTMLInputElement>(`input.note[data-note-for="${index}"]`);
  const note = input?.value.trim() ?? '';
  const path = `calls/${index}/${verb}`;
  return note === '' ? { path } : { path, body: { note } };
}

// The latest state, for the answers: a form's fields are read as its question types them.
let latest = emptyPageState();
state$.subscribe((state) => (latest = state));

/**
 * The answer a question form's button gives: Submit sends the fields, the others no content. It
 * names the question it answers (the call's n-th), so that if another tab answered it first, the
 * server refuses it rather than give it to a question asked since.
 */
function answerAction(form: HTMLFormElement, answer: string): Action | undefined {
  const index = Number(form.dataset.callIndex);
  const question = latest.questions.get(index);
  if (question === undefined) return undefined;
  const which = { question: latest.asked.get(index) };
  const body =
    answer === 'accept'
      ? { action: 'accept', content: formContent(form, question), ...which }
      : { action: answer, ...which };
  return { path: `calls/${index}/answer`, body };
}

const clicks = fromEvent<MouseEvent>(document, 'click').pipe(
  map((event) => (event.target as Element).closest<HTMLButtonElement>('button')),
  filter((button): button is HTMLButtonElement => button !== null && !button.disabled),
  map((button) => {
    const form = button.closest<HTMLFormElement>('form.question');
    if (form === null)
      return button.dataset.action === undefined ? undefined : buttonAction(button);
    // Submit goes through the form's own checks (required fields, bounds): see `submits`.
    const answer = button.dataset.answer;
    return answer === undefined || answer === 'accept' ? undefined : answerAction(form, answer);
  }),
);

const submits = fromEvent<SubmitEvent>(document, 'submit').pipe(
  map((event) => {
    event.preventDefault();
    const form = (event.target as Element).closest<HTMLFormElement>('form.question');
    return form === null ? undefined : answerAction(form, 'accept');
  }),
);

merge(clicks, submits)
  .pipe(
    filter((action): action is Action => action !== undefined),
    mergeMap(({ path, body }) => postAction(`${path}?token=${token}`, body)),
    switchMap((message) =>
      message === '' ? of('') : concat(of(message), timer(NOTICE_MS).pipe(map(() => ''))),
    ),
  )
  .subscribe((message) => {
    notice.hidden = message === '';
    setText(notice, message);
  });
